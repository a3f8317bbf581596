// The MQTT target (mqtt.js; Mosquitto), as MinIO's notify_mqtt: each message is published with
// QoS 1 to the topic named by the URL's path (mqtt://USER:PASS@HOST:PORT/TOPIC, the topic may hold
// '/'), and a send resolves on the broker's PUBACK. The client does not reconnect or keep messages
// of its own: a lost connection fails the send and the notifier retries it on a new one.

import { connectAsync, type MqttClient } from 'mqtt';
import type { TargetConfig } from './config.js';
import { LazyConnection, withTimeout, type Target } from './target.js';

const TIMEOUT_MS = 10_000;

export function mqttTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const topic = decodeURIComponent(url.pathname.slice(1));
  if (!topic) throw new Error(`notify-mqtt: target ${config.id} names no topic (mqtt://HOST:PORT/TOPIC)`);
  const connection = new LazyConnection<{ client: MqttClient; closed: Promise<never> }>(
    async (lost) => {
      const client = await connectAsync(`${url.protocol}//${url.host}`, {
        ...(url.username ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : {}),
        reconnectPeriod: 0,
        connectTimeout: TIMEOUT_MS,
        clean: true,
      });
      // a publish waiting for its PUBACK fails when the connection goes (the client would keep it for a reconnect)
      const closed = new Promise<never>((_, reject) => client.once('close', () => reject(new Error('mqtt: connection closed'))));
      closed.catch(() => undefined);
      client.on('error', () => undefined);
      client.once('close', lost);
      return { client, closed };
    },
    ({ client }) => client.endAsync(true),
  );
  return {
    send: (message) =>
      connection.use(async ({ client, closed }) => {
        await withTimeout(Promise.race([client.publishAsync(topic, message, { qos: 1 }), closed]), TIMEOUT_MS, 'mqtt publish');
      }),
    close: () => connection.close(),
  };
}
