// Bucket notifications to PostgreSQL (--notify-postgresql ID=postgres://…?table=T&format=…) with
// Debian's postgresql, a cluster made here by initdb in a temp dir on a free loopback port: the
// access format appends the boto3 scenario's records in order, the namespace format mirrors the
// objects (upsert, delete), and events written while the database is down are written once it is back.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectDeliveryAfterOutage, expectScenario, missingProgram, POSTGRES_BIN, runScenario, startPostgres, type Broker, type EventMessage } from './helpers/brokers.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const LOG_ARN = 'arn:tusk:sqs:us-east-1:log:postgresql';
const MIRROR_ARN = 'arn:tusk:sqs:us-east-1:mirror:postgresql';

describe.skipIf(missingProgram(POSTGRES_BIN, 'postgresql'))('bucket notifications to PostgreSQL', () => {
  const dir = makeTempDirFixture();
  let db: Broker & { url: string };
  let server: TuskServer;
  const query = async <T,>(sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const logged = async () => (await query<{ event_data: EventMessage }>('SELECT event_data FROM s3_log ORDER BY event_time, ctid')).map((r) => r.event_data);
  beforeAll(async () => {
    db = await startPostgres(dir.path);
    server = await startTusk({
      extraArgs: ['--notify-postgresql', `log=${db.url}?table=s3_log&format=access,mirror=${db.url}?table=s3_objects&format=namespace`],
    });
  });
  afterAll(async () => {
    await server?.dispose();
    await db?.stop();
    dir.remove();
  });

  it('access format: appends every scenario record in order, filters honoured', async () => {
    const { bucket, out } = await runScenario(server, LOG_ARN);
    const rows = await eventually(logged, (r) => r.flatMap((m) => m.Records ?? []).filter((x) => x.s3.bucket.name === bucket).length >= 7, 'the scenario rows');
    expectScenario(rows, bucket, out);
  });

  it('namespace format: one row per existing object, removed ones deleted', async () => {
    const { bucket } = await runScenario(server, MIRROR_ARN);
    // the scenario leaves one object the filters pass: the others were deleted or hidden by a delete marker
    const rows = await eventually(
      () => query<{ key: string; value: EventMessage }>(`SELECT key, value FROM s3_objects WHERE key LIKE '${bucket}/%' ORDER BY key`),
      (r) => r.length === 1 && r[0]!.value.EventName === 's3:ObjectTagging:Delete',
      'the mirrored objects',
    );
    expect(rows.map((r) => r.key)).toEqual([`${bucket}/in/a b+c.txt`]);
    await eventually(() => query(`SELECT key FROM s3_objects WHERE key = '${bucket}/in/multi.txt'`), (r) => r.length === 0, 'the delete marker deleting its row');
  });

  it('writes the events made while the database was down once it is back', async () => {
    await expectDeliveryAfterOutage(server, LOG_ARN, db, logged);
  });
});
