// Bucket notifications to AMQP 0-9-1 (--notify-amqp ID=amqp://…?exchange=X&routing_key=K) with
// Debian's rabbitmq-server, started once here on a free loopback port in a temp dir: the boto3
// scenario's records reach a durable queue bound to the exchange; a message no queue takes waits in
// Tusk until one is bound (mandatory publishing); events written while the broker is down reach the
// queue once it is back.

import { connect, type Channel, type ChannelModel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  expectDeliveryAfterOutage,
  expectScenario,
  missingProgram,
  RABBITMQ_SERVER,
  runScenario,
  startRabbit,
  targetStatus,
  type Broker,
  type EventMessage,
} from './helpers/brokers.js';
import { s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const ARN = 'arn:tusk:sqs:us-east-1:rabbit:amqp';
const LATER_ARN = 'arn:tusk:sqs:us-east-1:later:amqp';
const EXCHANGE = 'tusk-events';

describe.skipIf(missingProgram(RABBITMQ_SERVER, 'rabbitmq-server'))('bucket notifications to AMQP', () => {
  const dir = makeTempDirFixture();
  let rabbit: Broker;
  let server: TuskServer;
  let model: ChannelModel;
  let channel: Channel;
  const got = new Map<string, EventMessage[]>();
  const consume = async () => {
    model = await connect(`amqp://guest:guest@127.0.0.1:${rabbit.port}`);
    channel = await model.createChannel();
    await channel.assertExchange(EXCHANGE, 'direct', { durable: true });
    await channel.assertQueue('events', { durable: true });
    await channel.bindQueue('events', EXCHANGE, 's3');
    await channel.consume('events', (m) => {
      if (!m) return;
      got.set('events', [...(got.get('events') ?? []), JSON.parse(m.content.toString('utf8')) as EventMessage]);
      channel.ack(m);
    });
  };
  beforeAll(async () => {
    rabbit = await startRabbit(dir.path);
    await consume();
    const url = `amqp://guest:guest@127.0.0.1:${rabbit.port}/?exchange=${EXCHANGE}`;
    server = await startTusk({ extraArgs: ['--notify-amqp', `rabbit=${url}&routing_key=s3,later=${url}&routing_key=later`] });
  }, 120_000);
  afterAll(async () => {
    await model?.close().catch(() => undefined);
    await server?.dispose();
    await rabbit?.stop();
    dir.remove();
  });

  it('publishes the scenario records to the exchange, persistent and confirmed, filters honoured', async () => {
    const { bucket, out } = await runScenario(server, ARN);
    const messages = await eventually(() => got.get('events') ?? [], (m) => m.flatMap((x) => x.Records ?? []).length >= 7, 'the scenario records');
    expectScenario(messages, bucket, out);
  });

  it('keeps an event no queue takes until one is bound', async () => {
    const bucket = bucketName('notify-unbound');
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const config = `<NotificationConfiguration><QueueConfiguration><Queue>${LATER_ARN}</Queue><Event>s3:ObjectCreated:*</Event></QueueConfiguration></NotificationConfiguration>`;
    expect((await s3Request(server, { method: 'PUT', bucket, query: 'notification', body: config })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket, key: 'early', body: 'x' })).status).toBe(200);
    await eventually(() => targetStatus(server, LATER_ARN), (s) => s !== undefined && s.failed > 0 && s.pending === 1, 'the event held while unroutable');
    await channel.assertQueue('later', { exclusive: true });
    await channel.bindQueue('later', EXCHANGE, 'later');
    const message = await eventually(() => channel.get('later', { noAck: true }), (m) => m !== false, 'the event in the queue bound late');
    expect((JSON.parse((message as { content: Buffer }).content.toString('utf8')) as EventMessage).Records![0]!.s3.object.key).toBe('early');
  });

  it('delivers the events written while the broker was down once it is back', async () => {
    await expectDeliveryAfterOutage(server, ARN, rabbit, async () => got.get('events') ?? [], {
      stopping: () => model.close(),
      started: consume,
    });
  }, 90_000);
});
