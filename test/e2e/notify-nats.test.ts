// Bucket notifications to NATS (--notify-nats ID=nats://HOST:PORT/SUBJECT[?jetstream=true]) with
// Debian's nats-server, started here on a free loopback port with JetStream in a temp dir: the boto3
// scenario's records reach a subscriber of a plain subject; with JetStream, events written while the
// server is down are stored in the stream once it is back.

import { connect, type NatsConnection, type Subscription } from 'nats';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { eventually, expectDeliveryAfterOutage, expectScenario, missingProgram, NATS_SERVER, runScenario, startNats, type Broker, type EventMessage } from './helpers/brokers.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const CORE_ARN = 'arn:tusk:sqs:us-east-1:core:nats';
const STREAM_ARN = 'arn:tusk:sqs:us-east-1:stream:nats';

describe.skipIf(missingProgram(NATS_SERVER, 'nats-server'))('bucket notifications to NATS', () => {
  const dir = makeTempDirFixture();
  let nats: Broker;
  let server: TuskServer;
  let nc: NatsConnection;
  const connectClient = async () => {
    nc = await connect({ servers: `127.0.0.1:${nats.port}`, reconnect: false });
  };
  beforeAll(async () => {
    nats = await startNats(dir.path);
    await connectClient();
    const url = `nats://127.0.0.1:${nats.port}`;
    server = await startTusk({ extraArgs: ['--notify-nats', `core=${url}/tusk.core,stream=${url}/tusk.stream?jetstream=true`] });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.dispose();
    await nats?.stop();
    dir.remove();
  });

  const collect = (sub: Subscription, into: EventMessage[]) => {
    void (async () => {
      for await (const m of sub) into.push(JSON.parse(m.string()) as EventMessage);
    })();
  };

  it('publishes the scenario records to the subject, filters honoured', async () => {
    const got: EventMessage[] = [];
    collect(nc.subscribe('tusk.core'), got);
    await nc.flush();
    const { bucket, out } = await runScenario(server, CORE_ARN);
    await eventually(() => got.flatMap((m) => m.Records ?? []).length, (n) => n >= 7, 'the scenario records');
    expectScenario(got, bucket, out);
  });

  it('with JetStream, stores the events written while the server was down once it is back', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: 'TUSK', subjects: ['tusk.stream'] });
    const read = async (): Promise<EventMessage[]> => {
      const jsm = await nc.jetstreamManager();
      const { state } = await jsm.streams.info('TUSK');
      const out: EventMessage[] = [];
      for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) out.push(JSON.parse((await jsm.streams.getMessage('TUSK', { seq })).string()) as EventMessage);
      return out;
    };
    await expectDeliveryAfterOutage(server, STREAM_ARN, nats, read, { stopping: () => nc.close(), started: connectClient });
  });
});
