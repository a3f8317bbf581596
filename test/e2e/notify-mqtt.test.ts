// Bucket notifications to MQTT (--notify-mqtt ID=mqtt://HOST:PORT/TOPIC, QoS 1) with Debian's
// mosquitto, started here on a free loopback port, persistent in a temp dir: the boto3 scenario's
// records reach a subscriber, and events written while the broker is down reach it once it is back
// (the subscriber's persistent session keeps what arrives while it reconnects).

import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { eventually, expectDeliveryAfterOutage, expectScenario, missingProgram, MOSQUITTO, runScenario, startMosquitto, type Broker, type EventMessage } from './helpers/brokers.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const ARN = 'arn:tusk:sqs:us-east-1:bus:mqtt';
const TOPIC = 'tusk/events';

describe.skipIf(missingProgram(MOSQUITTO, 'mosquitto'))('bucket notifications to MQTT', () => {
  const dir = makeTempDirFixture();
  let broker: Broker;
  let server: TuskServer;
  let client: MqttClient;
  const got: EventMessage[] = [];
  const subscribe = async () => {
    // the handler is on before the connection: a persistent session's queued messages arrive right
    // after CONNACK, before connectAsync would have resolved
    client = mqtt.connect(`mqtt://127.0.0.1:${broker.port}`, { clientId: 'tusk-test-subscriber', clean: false, reconnectPeriod: 0 });
    client.on('message', (_topic, payload) => got.push(JSON.parse(payload.toString('utf8')) as EventMessage));
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    await client.subscribeAsync(TOPIC, { qos: 1 });
  };
  beforeAll(async () => {
    broker = await startMosquitto(dir.path);
    await subscribe();
    server = await startTusk({ extraArgs: ['--notify-mqtt', `bus=mqtt://127.0.0.1:${broker.port}/${TOPIC}`] });
  });
  afterAll(async () => {
    await client?.endAsync(true);
    await server?.dispose();
    await broker?.stop();
    dir.remove();
  });

  it('publishes the scenario records with QoS 1, filters honoured', async () => {
    const { bucket, out } = await runScenario(server, ARN);
    await eventually(() => got.flatMap((m) => m.Records ?? []).filter((r) => r.s3.bucket.name === bucket).length, (n) => n >= 7, 'the scenario records');
    expectScenario(got, bucket, out);
  });

  it('delivers the events written while the broker was down once it is back', async () => {
    await expectDeliveryAfterOutage(server, ARN, broker, async () => got, { stopping: () => client.endAsync(), started: subscribe });
  });
});
