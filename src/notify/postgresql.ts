// The PostgreSQL target (pg), as MinIO's notify_postgres, in either of its two formats:
// postgres://USER:PASS@HOST:PORT/DB?table=T[&format=namespace|access]
// - namespace (default): the table mirrors the objects, one row per `bucket/key` (`key` the primary
//   key, `value` the event as JSONB): a creation or tagging upserts the row, a removal (a delete or a
//   delete marker: the object is no longer there) deletes it;
// - access: every event appends a row (`event_time`, `event_data` JSONB).
// The table is created on connect if missing. A send resolves once the statement committed.

import pg from 'pg';
import type { TargetConfig } from './config.js';
import { LazyConnection, takeParam, type Target } from './target.js';

const TIMEOUT_MS = 10_000;
const FORMATS = ['namespace', 'access'] as const;
const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

interface Message {
  EventName?: string;
  Key?: string;
  Records?: Array<{ eventTime: string }>;
}

export function postgresqlTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const table = takeParam(url, 'table') ?? '';
  const format = takeParam(url, 'format') ?? 'namespace';
  if (!TABLE.test(table)) throw new Error(`notify-postgresql: target ${config.id} needs ?table=NAME (letters, digits and _)`);
  if (!(FORMATS as readonly string[]).includes(format)) throw new Error(`notify-postgresql: format must be namespace or access, got '${format}'`);
  const create =
    format === 'namespace'
      ? `CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR PRIMARY KEY, value JSONB)`
      : `CREATE TABLE IF NOT EXISTS ${table} (event_time TIMESTAMP WITH TIME ZONE NOT NULL, event_data JSONB)`;
  const connection = new LazyConnection<pg.Client>(
    async (lost) => {
      const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: TIMEOUT_MS, query_timeout: TIMEOUT_MS });
      client.on('error', () => undefined);
      client.on('end', lost);
      try {
        await client.connect();
        await client.query(create);
        return client;
      } catch (e) {
        await client.end().catch(() => undefined);
        throw e;
      }
    },
    (client) => client.end(),
  );
  return {
    send: (message) =>
      connection.use(async (client) => {
        const m = JSON.parse(message) as Message;
        if (format === 'access') {
          await client.query(`INSERT INTO ${table} (event_time, event_data) VALUES ($1, $2)`, [m.Records?.[0]?.eventTime ?? new Date().toISOString(), message]);
        } else if (!m.Key || !m.EventName) {
          // the s3:TestEvent names no object: nothing to mirror
        } else if (m.EventName.startsWith('s3:ObjectRemoved:')) {
          await client.query(`DELETE FROM ${table} WHERE key = $1`, [m.Key]);
        } else {
          await client.query(`INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [m.Key, message]);
        }
      }),
    close: () => connection.close(),
  };
}
