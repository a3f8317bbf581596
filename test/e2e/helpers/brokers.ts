// Debian's message brokers and PostgreSQL for the notification target tests, each started on a free
// loopback port in a temp dir by the test itself (no systemd), and stopped after; plus the boto3
// scenario each target's records are checked against.

import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { freePort } from '../../../src/http/listener.js';
import { runBoto3 } from './boto3.js';
import { s3Request } from './clients.js';
import { spawnUntil, type TestChild } from './child-process.js';
import { bucketName } from './fixtures.js';
import type { TuskServer } from './server.js';

export interface Broker {
  port: number;
  /** starts it again on the same port and data (after stop) */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Ready once something accepts a TCP connection on `port`. */
const listening = (port: number) => () =>
  new Promise<RegExpExecArray | undefined>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(/./.exec('up')!);
    });
    socket.once('error', () => resolve(undefined));
  });

async function broker(spawn: (port: number) => Promise<TestChild>, after?: () => void, stopSignal?: NodeJS.Signals): Promise<Broker> {
  const port = await freePort('127.0.0.1');
  let child: TestChild | undefined;
  const b: Broker = {
    port,
    start: async () => void (child = await spawn(port)),
    stop: async () => {
      if (child?.alive() && stopSignal) process.kill(child.pid, stopSignal);
      await child?.stop();
      child = undefined;
      after?.();
    },
  };
  await b.start();
  return b;
}

export const NATS_SERVER = '/usr/sbin/nats-server';
export const MOSQUITTO = '/usr/sbin/mosquitto';
export const RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
/** Debian installs each PostgreSQL major version's programs under its own folder */
export const POSTGRES_BIN = (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [])
  .map((v) => `/usr/lib/postgresql/${v}/bin/postgres`)
  .filter((p) => existsSync(p))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  .at(-1);

/** A skip note when `program` is missing (node scripts/setup.mjs --test installs it). */
export function missingProgram(program: string | undefined, pkg: string): boolean {
  if (program && existsSync(program)) return false;
  console.warn(`skipping: ${program ?? pkg} is missing (apt-get install ${pkg}; node scripts/setup.mjs --test)`);
  return true;
}

/** nats-server with JetStream, its store in `dir`. */
export function startNats(dir: string): Promise<Broker> {
  return broker((port) =>
    spawnUntil(['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], listening(port), { command: NATS_SERVER, label: 'nats-server', startTimeoutMs: 20_000 }),
  );
}

/** mosquitto, persistent (a subscriber's session and its queued QoS 1 messages survive a restart). */
export function startMosquitto(dir: string): Promise<Broker> {
  return broker((port) => {
    const conf = join(dir, 'mosquitto.conf');
    writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location ${dir}/\nlog_dest stdout\n`);
    if (process.getuid?.() === 0) chownSync(dir, uidOf('mosquitto'), gidOf('mosquitto'));
    return spawnUntil(['-c', conf], listening(port), { command: MOSQUITTO, label: 'mosquitto', startTimeoutMs: 20_000 });
  });
}

const uidOf = (user: string) => Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
const gidOf = (user: string) => Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());

/**
 * PostgreSQL from initdb in `dir`, user `postgres` trusted on loopback. PostgreSQL refuses to run as
 * root ("root execution of the PostgreSQL server is not permitted"): as root, the cluster is made and
 * run as Debian's `postgres` user (setpriv execs, so the stop signal reaches postgres itself).
 */
export async function startPostgres(dir: string): Promise<Broker & { url: string }> {
  const bin = POSTGRES_BIN!.replace(/\/postgres$/, '');
  const data = join(dir, 'data');
  const asUser = process.getuid?.() === 0 ? ['/usr/bin/setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups'] : [];
  if (asUser.length) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const [initCmd, ...initArgs] = [...asUser, join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'];
  execFileSync(initCmd!, initArgs, { stdio: 'ignore' });
  const b = await broker((port) => {
    const ready = async () => {
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return /./.exec('up')!;
      } catch {
        return undefined;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    const [cmd, ...args] = [...asUser, join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
    return spawnUntil(args, ready, { command: cmd, label: 'postgres', startTimeoutMs: 30_000 });
    // SIGTERM is PostgreSQL's smart shutdown, which waits for Tusk's connection to end; SIGINT is the fast one
  }, undefined, 'SIGINT');
  return { ...b, url: `postgres://postgres@127.0.0.1:${b.port}/postgres` };
}

/**
 * rabbitmq-server with its node, data and logs in `dir` and an epmd of its own on a free port
 * (ended after the broker), so that nothing outlives the test. Slow to start (~10 s): once per file.
 */
export async function startRabbit(dir: string): Promise<Broker> {
  const epmdPort = await freePort('127.0.0.1');
  // a port of its own: RabbitMQ's default (AMQP port + 20000) may be taken
  let distPort = await freePort('127.0.0.1');
  while (distPort === epmdPort) distPort = await freePort('127.0.0.1');
  const env = (port: number): NodeJS.ProcessEnv => ({
    HOME: dir,
    ERL_EPMD_PORT: String(epmdPort),
    ERL_EPMD_ADDRESS: '127.0.0.1',
    RABBITMQ_NODENAME: `tusk-test-${port}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
  });
  // an empty configuration and no plugins: nothing of the system's /etc/rabbitmq
  writeFileSync(join(dir, 'rabbitmq.conf'), '');
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  const killEpmd = () => {
    try {
      execFileSync('epmd', ['-kill'], { env: { ...process.env, ERL_EPMD_PORT: String(epmdPort) }, stdio: 'ignore' });
    } catch {
      // none running
    }
  };
  return broker(
    (port) => spawnUntil([], /Starting broker\.\.\. completed/, { command: RABBITMQ_SERVER, env: env(port), label: 'rabbitmq-server', startTimeoutMs: 90_000 }),
    killEpmd,
  );
}

/** The records of the boto3 notification scenario (notifications.py) in commit order, as `eventName key` (every destination the same target). */
export const SCENARIO_EVENTS = [
  'ObjectCreated:Put in%2Fa+b%2Bc.txt',
  'ObjectCreated:CompleteMultipartUpload in%2Fmulti.txt',
  'ObjectCreated:Copy in%2Fcopy.txt',
  'ObjectTagging:Put in%2Fa+b%2Bc.txt',
  'ObjectTagging:Delete in%2Fa+b%2Bc.txt',
  'ObjectRemoved:Delete in%2Fcopy.txt',
  'ObjectRemoved:DeleteMarkerCreated in%2Fmulti.txt',
];

export interface EventMessage {
  EventName?: string;
  Key?: string;
  Event?: string;
  Records?: Array<{ eventName: string; s3: { bucket: { name: string }; object: { key: string; size?: number; eTag?: string; versionId?: string; sequencer: string } } }>;
}

/**
 * Runs the boto3 scenario (configuration through put_bucket_notification_configuration, with S3's
 * validation errors first; PUT, multipart complete, copy, tagging, delete, delete marker; keys the
 * prefix and suffix filters leave out) on a new bucket with every destination `arn`.
 */
export async function runScenario(server: TuskServer, arn: string): Promise<{ bucket: string; out: Record<string, string> }> {
  const bucket = bucketName('notify-scenario');
  const out = (await runBoto3(server, 'notifications.py', { BUCKET: bucket, ARN: arn, ARN2: arn })) as Record<string, string>;
  return { bucket, out };
}

/** Checks a target's messages for the scenario's bucket: every record, in order, with the right fields. */
export function expectScenario(messages: EventMessage[], bucket: string, out: Record<string, string>): void {
  const records = messages.flatMap((m) => m.Records ?? []).filter((r) => r.s3.bucket.name === bucket);
  expect(records.map((r) => `${r.eventName} ${r.s3.object.key}`)).toEqual(SCENARIO_EVENTS);
  const sequencers = records.map((r) => r.s3.object.sequencer);
  expect([...sequencers].sort()).toEqual(sequencers);
  expect(records[0]!.s3.object).toMatchObject({ size: 5, eTag: out.put });
  expect(records[1]!.s3.object).toMatchObject({ size: 1000, eTag: out.multipart });
  expect(records[6]!.s3.object.versionId).toBe(out.marker);
  expect(messages.some((m) => m.Event === 's3:TestEvent')).toBe(true);
}

/** Polls `get` until `done` holds of its answer (20 s at most). */
export async function eventually<T>(get: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A target's line in `tusk admin notify status`. */
export async function targetStatus(server: TuskServer, arn: string): Promise<{ pending: number; delivered: number; failed: number; up: boolean } | undefined> {
  const res = await s3Request(server, { method: 'GET', path: '/tusk/admin/v1/notify' });
  return (JSON.parse(res.text()) as { targets: Array<{ arn: string; pending: number; delivered: number; failed: number; up: boolean }> }).targets.find((t) => t.arn === arn);
}

/**
 * The target goes down while writes happen: they are acknowledged at once, the events wait in Tusk
 * (admin status: down, pending), and once the target is back it gets every one, in order.
 * `read` gives every message the target holds so far; `stopped`/`started` run around the outage.
 */
export async function expectDeliveryAfterOutage(
  server: TuskServer,
  arn: string,
  broker: Broker,
  read: () => Promise<EventMessage[]>,
  around: { stopping?: () => Promise<void>; started?: () => Promise<void> } = {},
): Promise<void> {
  const bucket = bucketName('notify-outage');
  expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
  const config =
    `<NotificationConfiguration><QueueConfiguration><Id>logs</Id><Queue>${arn}</Queue><Event>s3:ObjectCreated:*</Event>` +
    '<Event>s3:ObjectRemoved:*</Event><Filter><S3Key><FilterRule><Name>suffix</Name><Value>.log</Value></FilterRule></S3Key></Filter>' +
    '</QueueConfiguration></NotificationConfiguration>';
  expect((await s3Request(server, { method: 'PUT', bucket, query: 'notification', body: config })).status).toBe(200);
  const events = async () => {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const r of (await read()).flatMap((m) => m.Records ?? [])) {
      // at least once: a repeat has a sequencer already seen
      if (r.s3.bucket.name !== bucket || seen.has(r.s3.object.sequencer)) continue;
      seen.add(r.s3.object.sequencer);
      out.push(`${r.eventName} ${r.s3.object.key}`);
    }
    return out;
  };
  expect((await s3Request(server, { method: 'PUT', bucket, key: 'a.log', body: 'one' })).status).toBe(200);
  await eventually(events, (e) => e.length === 1, 'the event before the outage');

  await around.stopping?.();
  await broker.stop();
  expect((await s3Request(server, { method: 'PUT', bucket, key: 'b.log', body: 'while down' })).status).toBe(200);
  expect((await s3Request(server, { method: 'PUT', bucket, key: 'c.txt', body: 'filtered out' })).status).toBe(200);
  expect((await s3Request(server, { method: 'DELETE', bucket, key: 'a.log' })).status).toBe(204);
  const down = await eventually(() => targetStatus(server, arn), (s) => s !== undefined && !s.up && s.pending === 2, 'the target marked down with 2 events pending');
  expect(down!.failed).toBeGreaterThan(0);

  await broker.start();
  await around.started?.();
  expect(await eventually(events, (e) => e.length >= 3, 'the events written while the target was down')).toEqual([
    'ObjectCreated:Put a.log',
    'ObjectCreated:Put b.log',
    'ObjectRemoved:Delete a.log',
  ]);
  const after = await eventually(() => targetStatus(server, arn), (s) => s !== undefined && s.up && s.pending === 0, 'the target up with nothing pending');
  expect(after!.delivered).toBeGreaterThanOrEqual(3);
}
