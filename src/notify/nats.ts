// The NATS target (nats.js), as MinIO's notify_nats: each message is published to the subject named
// by the URL's path (nats://USER:PASS@HOST:PORT/SUBJECT). Plain NATS keeps nothing: a send resolves
// once the server has the message (a flush round trip after the publish), so only subscribers
// connected then get it. With ?jetstream=true a send resolves on JetStream's acknowledgement that a
// stream stored it (a subject no stream captures fails, and is retried), which is what survives a
// consumer being away.

import { connect, type NatsConnection } from 'nats';
import type { TargetConfig } from './config.js';
import { LazyConnection, takeParam, withTimeout, type Target } from './target.js';

const TIMEOUT_MS = 10_000;

export function natsTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const jetstream = takeParam(url, 'jetstream') === 'true';
  const subject = decodeURIComponent(url.pathname.slice(1));
  if (!subject) throw new Error(`notify-nats: target ${config.id} names no subject (nats://HOST:PORT/SUBJECT)`);
  const connection = new LazyConnection<NatsConnection>(
    async (lost) => {
      const nc = await connect({
        servers: `${url.hostname}:${url.port || 4222}`,
        ...(url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {}),
        ...(url.protocol === 'tls:' ? { tls: {} } : {}),
        // reconnects are the notifier's back-off
        reconnect: false,
        timeout: TIMEOUT_MS,
      });
      void nc.closed().then(lost);
      return nc;
    },
    (nc) => nc.close(),
  );
  const data = (message: string) => new TextEncoder().encode(message);
  return {
    send: (message) =>
      connection.use(async (nc) => {
        if (jetstream) {
          await nc.jetstream({ timeout: TIMEOUT_MS }).publish(subject, data(message));
        } else {
          nc.publish(subject, data(message));
          await withTimeout(nc.flush(), TIMEOUT_MS, 'nats flush');
        }
      }),
    close: () => connection.close(),
  };
}
