// Lifecycle Transition to storage class WALRUS (issue #34, README "S3 objects on Walrus") on the
// embedded network, with a 1 s lifecycle day: current and noncurrent versions move to blobs in the
// background and read back byte-identical with the class and blob ids, small versions moved by one
// pass share quilts as small PUTs do, a version overwritten
// meanwhile is not clobbered, compaction then gives the local space back, and `kill -9` at random
// moments of the transition loses and corrupts nothing; a logged bucket's transition is logged as AWS logs one.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/bench/random.js';
import { runBounded } from '../../src/publisher/nodes/run-bounded.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture, randomBody } from './helpers/fixtures.js';
import { shardRanges, startStorageNodeProcess, type StorageNodeProcess } from './helpers/publisher.js';
import { dirBytes, segmentBytes } from './helpers/segments.js';
import { publisherOf, randomCredentials, startTusk, type TuskServer } from './helpers/server.js';
import { md5Base64, UNSIGNED_PAYLOAD } from './helpers/sigv4.js';
import { patchRead } from './helpers/walrus.js';
import { expectS3Error } from './helpers/xml.js';

const KIB = 1024;
// below the largest blob 10 shards encode: a 5 MB object spans four blobs
const MAX_BLOB = 1.5 * 1024 * KIB;
const ARGS = ['--n-shards', '10', '--max-blob-size', `${MAX_BLOB}`, '--lifecycle-day', '1s', '--lifecycle-interval', '300ms'];
const MIB = 1024 * KIB;

// The crash test. By default small: six objects of 400-900 KB on the embedded network, two kill -9.
// At the issue's scale (a bucket of 1 GiB: 192 objects of 5 MiB, each two blobs, and 256 of
// 256 KiB, quilt patches; 100 shards on four `tusk storage-node` processes; five kill -9; about
// 4 minutes on two cores): TUSK_TRANSITION_SCALE=issue npx vitest run --project tusk test/e2e/walrus-transition.test.ts
const CRASH =
  process.env['TUSK_TRANSITION_SCALE'] === 'issue'
    ? {
        label: 'issue',
        objects: [
          { prefix: 'big/', count: 192, size: () => 5 * MIB },
          { prefix: 'small/', count: 256, size: () => 256 * KIB },
        ],
        shards: 100,
        nodes: 4,
        // 4 MiB blobs (100 shards encode up to ~140 MiB); compaction as often as the small test's
        args: ['--n-shards', '100', '--max-blob-size', `${4 * MIB}`, '--lifecycle-day', '1s', '--lifecycle-interval', '300ms', '--compaction-interval', '500ms', '--compaction-dead', '0.3'],
        kills: 5,
        jitterMs: 3000,
        waitMs: 1_800_000,
        timeoutMs: 3_600_000,
      }
    : {
        label: 'small',
        objects: [{ prefix: 'o', count: 6, size: (i: number) => 400_000 + i * 100_000 }],
        shards: 10,
        nodes: 0,
        args: ARGS,
        kills: 2,
        jitterMs: 800,
        waitMs: 30_000,
        timeoutMs: 120_000,
      };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

const rule = (body: string) =>
  `<LifecycleConfiguration><Rule><ID>to-walrus</ID><Filter></Filter><Status>Enabled</Status>${body}</Rule></LifecycleConfiguration>`;
const TO_WALRUS = rule(
  '<Transition><Days>0</Days><StorageClass>WALRUS</StorageClass></Transition>' +
    '<NoncurrentVersionTransition><NoncurrentDays>0</NoncurrentDays><StorageClass>WALRUS</StorageClass></NoncurrentVersionTransition>',
);

async function put(server: TuskServer, bucket: string, key: string, body: Buffer): Promise<string | undefined> {
  const res = await s3Request(server, { method: 'PUT', bucket, key, body, payloadHash: UNSIGNED_PAYLOAD });
  expect(res.status, res.body.toString()).toBe(200);
  return res.headers['x-amz-version-id'];
}

async function configure(server: TuskServer, bucket: string, xml: string) {
  // PutBucketLifecycleConfiguration requires Content-MD5 (or a checksum)
  return s3Request(server, { method: 'PUT', bucket, query: { lifecycle: '' }, body: xml, headers: { 'content-md5': md5Base64(Buffer.from(xml)) } });
}

/** HEAD's storage class (STANDARD when absent), blob ids and quilt patch id of a version. */
async function classOf(server: TuskServer, bucket: string, key: string, versionId?: string): Promise<{ cls: string; blobs?: string; patch?: string }> {
  const res = await s3Request(server, { method: 'HEAD', bucket, key, query: versionId ? { versionId } : {} });
  expect(res.status, key).toBe(200);
  return { cls: res.headers['x-amz-storage-class'] ?? 'STANDARD', blobs: res.headers['x-tusk-walrus-blob-id'], patch: res.headers['x-tusk-walrus-patch-id'] };
}

/** How many of a bucket's objects ListObjectsV2 shows on WALRUS now (keys need no XML escaping). */
async function classesOf(server: TuskServer, bucket: string): Promise<{ walrus: number }> {
  let walrus = 0;
  let token: string | undefined;
  do {
    const res = await s3Request(server, { method: 'GET', bucket, query: { 'list-type': '2', ...(token ? { 'continuation-token': token } : {}) } });
    expect(res.status).toBe(200);
    const xml = res.body.toString();
    walrus += [...xml.matchAll(/<StorageClass>WALRUS<\/StorageClass>/g)].length;
    token = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1];
  } while (token);
  return { walrus };
}

/** The data directory's bytes, a walk of every file; the embedded network's slivers (nodes/) excluded. */
const localBytes = (dataDir: string) => dirBytes(dataDir, ['nodes']);

async function expectBody(server: TuskServer, bucket: string, key: string, body: Buffer, versionId?: string): Promise<void> {
  const res = await s3Request(server, { method: 'GET', bucket, key, query: versionId ? { versionId } : {} });
  expect(res.status, key).toBe(200);
  expect(md5(res.body), key).toBe(md5(body));
  const range = await s3Request(server, { method: 'GET', bucket, key, query: versionId ? { versionId } : {}, headers: { range: 'bytes=100-200' } });
  expect(range.status).toBe(206);
  expect(range.body.equals(body.subarray(100, 201)), `${key} range`).toBe(true);
}

async function until(what: string, server: TuskServer, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; server said: ${server.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, timeoutMs > 60_000 ? 1000 : 200));
  }
}

describe('lifecycle Transition to WALRUS', () => {
  const dirs: Array<{ remove(): void }> = [];
  afterAll(() => dirs.forEach((d) => d.remove()));

  // one server for the configuration and the transitions; compaction runs every 500 ms
  let server: TuskServer;
  beforeAll(async () => {
    const dir = makeTempDirFixture();
    dirs.push(dir);
    server = await startTusk({
      dataDir: dir.path,
      publisherListen: '127.0.0.1:0',
      extraArgs: [...ARGS, '--compaction-interval', '500ms', '--compaction-dead', '0.3', '--server-access-log-interval', '300ms'],
    });
  }, 60_000);
  afterAll(() => server?.dispose());

  it('answers each class as AWS would: WALRUS round-trips, AWS classes are 501, unknown ones MalformedXML', async () => {
    const plain = await startTusk();
    try {
      const bucket = 'conf';
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      expect((await configure(server, bucket, TO_WALRUS)).status).toBe(200);
      const got = await s3Request(server, { method: 'GET', bucket, query: { lifecycle: '' } });
      expect(got.body.toString()).toContain('<Transition><Days>0</Days><StorageClass>WALRUS</StorageClass></Transition>');
      expect(got.body.toString()).toContain('<NoncurrentVersionTransition><NoncurrentDays>0</NoncurrentDays><StorageClass>WALRUS</StorageClass></NoncurrentVersionTransition>');
      expectS3Error(await configure(server, bucket, rule('<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>')), 501, 'NotImplemented');
      expectS3Error(await configure(server, bucket, rule('<Transition><Days>30</Days><StorageClass>TAPE</StorageClass></Transition>')), 400, 'MalformedXML');
      expectS3Error(await configure(server, bucket, rule('<Transition><Days>1</Days><Date>2030-01-01T00:00:00Z</Date><StorageClass>WALRUS</StorageClass></Transition>')), 400, 'MalformedXML');
      // the configuration stored first is still the one
      expect((await s3Request(server, { method: 'GET', bucket, query: { lifecycle: '' } })).body.toString()).toContain('WALRUS');
      // no publisher, no Walrus network to transition to
      expect((await s3Request(plain, { method: 'PUT', bucket })).status).toBe(200);
      expectS3Error(await configure(plain, bucket, TO_WALRUS), 400, 'InvalidStorageClass');
    } finally {
      await plain.dispose();
    }
  }, 60_000);

  it('moves current and noncurrent versions to blobs; they read back, and compaction gives the local space back', async () => {
    {
      const bucket = 'tiered';
      expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
      expect((await s3Request(server, { method: 'PUT', bucket, query: { versioning: '' }, body: '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>' })).status).toBe(200);
      const old = randomBody(5_000_000);
      const oldId = await put(server, bucket, 'big', old);
      const current = randomBody(1_500_000);
      const currentId = await put(server, bucket, 'big', current);
      const small = randomBody(20_000);
      await put(server, bucket, 'dir/small file+%', small);
      const written = segmentBytes(server.dataDir);
      expect(written).toBeGreaterThan(6_500_000);

      expect((await configure(server, bucket, TO_WALRUS)).status).toBe(200);
      await until('every version on WALRUS', server, async () =>
        (await Promise.all([classOf(server, bucket, 'big'), classOf(server, bucket, 'big', oldId), classOf(server, bucket, 'dir/small file+%')])).every((c) => c.cls === 'WALRUS'));
      // the 5 MB version spans four blobs
      const oldBlobs = (await classOf(server, bucket, 'big', oldId)).blobs!.split(',');
      expect(oldBlobs).toHaveLength(4);
      // each blob carries attributes naming the version and its place in it, for walrus-import
      const { url: publisherUrl } = await publisherOf(server);
      for (const [i, id] of oldBlobs.entries()) {
        const view = (await (await fetch(`${publisherUrl}/v1/ledger/blobs/${id}`)).json()) as { objects: Array<{ object: { attributes?: Record<string, string> } }> };
        expect(view.objects[0]!.object.attributes).toMatchObject({ 'tusk-bucket': bucket, 'tusk-key': 'big', 'tusk-etag': md5(old), 'tusk-size': '5000000', 'tusk-blob-index': String(i), 'tusk-blob-offset': String(i * MAX_BLOB) });
      }
      await expectBody(server, bucket, 'big', current);
      await expectBody(server, bucket, 'big', old, oldId);
      await expectBody(server, bucket, 'dir/small file+%', small);
      const listed = await s3Request(server, { method: 'GET', bucket, query: { 'list-type': '2' } });
      expect(listed.body.toString()).toContain('<Size>1500000</Size>');

      // the local bytes are dead: compaction gives them back
      // the local bytes are dead: compaction gives them back (the active segment keeps up to 1 MiB
      // of dead bytes until more accumulate: compaction.ts ROLL_MIN_DEAD_BYTES)
      await until('the segments to shrink', server, async () => segmentBytes(server.dataDir) < 1.5 * 1024 * KIB);
      await expectBody(server, bucket, 'big', old, oldId);

      // an object written after the pass is transitioned by a later one, not clobbered
      const later = randomBody(300_000);
      await put(server, bucket, 'big', later);
      await until('the new version on WALRUS', server, async () => (await classOf(server, bucket, 'big')).cls === 'WALRUS');
      await expectBody(server, bucket, 'big', later);
      await expectBody(server, bucket, 'big', current, currentId);
    }
  }, 90_000);

  // a quilt gathers the patches that arrive within one window: small versions moved one after
  // another would make a quilt each, so a pass moves its small versions together
  it('moves the small versions of a pass together: they share quilts, each a patch the aggregator serves', async () => {
    const bucket = 'quilted';
    const count = 24;
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const bodies = new Map<string, Buffer>();
    await runBounded(Array.from({ length: count }, (_, i) => `s/${i}`), 4, async (key) => {
      const body = randomBody(4096);
      bodies.set(key, body);
      await put(server, bucket, key, body);
    });
    expect((await configure(server, bucket, TO_WALRUS)).status).toBe(200);
    await until('every small object on WALRUS', server, async () => (await classesOf(server, bucket)).walrus === count);
    const places = await Promise.all([...bodies.keys()].map(async (key) => ({ key, ...(await classOf(server, bucket, key)) })));
    // 10 shards make quilts of 7 columns, at most 6 patches each: 4 quilts hold 24, a blob each would be 24
    const quilts = new Set(places.map((p) => p.blobs)).size;
    console.log(`walrus-transition: ${count} versions of 4 KiB moved by lifecycle went into ${quilts} quilts`);
    expect(quilts).toBeLessThanOrEqual(8);
    const { url: publisherUrl } = await publisherOf(server);
    for (const p of places) {
      expect(p.cls).toBe('WALRUS');
      expect(p.patch, p.key).toBeDefined();
      expect(Buffer.from(await (await patchRead(publisherUrl, p.patch!)).arrayBuffer()).equals(bodies.get(p.key)!), p.key).toBe(true);
    }
    await expectBody(server, bucket, 's/0', bodies.get('s/0')!);
  }, 60_000);

  // AWS logs a transition as S3.TRANSITION_<class>.OBJECT (user guide *How S3 Lifecycle interacts
  // with other bucket configurations*); WALRUS takes that pattern
  it('logs a transition of a logged bucket as S3.TRANSITION_WALRUS.OBJECT', async () => {
    const [bucket, logs] = ['tlogged', 'tlogs'];
    for (const b of [bucket, logs]) expect((await s3Request(server, { method: 'PUT', bucket: b })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: logs, headers: { 'x-amz-acl': 'log-delivery-write' } })).status).toBe(200);
    const logging = `<BucketLoggingStatus><LoggingEnabled><TargetBucket>${logs}</TargetBucket><TargetPrefix>l/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`;
    expect((await s3Request(server, { method: 'PUT', bucket, query: { logging: '' }, body: logging, headers: { 'content-md5': md5Base64(Buffer.from(logging)) } })).status).toBe(200);
    await put(server, bucket, 'moved', randomBody(20_000));
    expect((await configure(server, bucket, TO_WALRUS)).status).toBe(200);
    let records: string[] = [];
    await until('the transition record', server, async () => {
      const list = (await s3Request(server, { method: 'GET', bucket: logs, query: { 'list-type': '2' } })).body.toString();
      const keys = [...list.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
      const bodies = await Promise.all(keys.map(async (key) => (await s3Request(server, { method: 'GET', bucket: logs, key })).body.toString()));
      records = bodies.flatMap((b) => b.split('\n')).filter((l) => l.includes(' S3.'));
      return records.length > 0;
    });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatch(new RegExp(`^\\S+ ${bucket} \\[[^\\]]+\\] - AmazonS3 \\S+ S3\\.TRANSITION_WALRUS\\.OBJECT moved "-" - - - 20000 - - "-" "-" - `));
    expect((await classOf(server, bucket, 'moved')).cls).toBe('WALRUS');
  }, 60_000);

  // The transition runs on the writer thread alone (front-end threads take no part in it), so the
  // threads-4 project does not repeat this crash test: it would add two minutes of CI for nothing new.
  // At the issue's scale (TUSK_TRANSITION_SCALE=issue, see CRASH) it is a bucket of 1 GiB over
  // storage-node processes, and the data directory then shrinks below 10% of it.
  it.skipIf(process.env['TUSK_THREADS'] === '4')(`kill -9 at random moments of the transition loses and corrupts nothing (${CRASH.label})`, async () => {
    const dir = makeTempDirFixture();
    dirs.push(dir);
    const root = randomCredentials();
    const seed = Number(process.env['TUSK_SEED'] ?? Date.now() % 100_000);
    const rand = seededRandom(seed);
    const bucket = 'crashy';
    const began = Date.now();
    // at scale the storage nodes are their own processes (own directories, never killed): the
    // server's data directory then holds only its own data (segments, index, ledger), no slivers
    const nodes: StorageNodeProcess[] = [];
    if (CRASH.nodes > 0) {
      const nodesDir = makeTempDirFixture();
      dirs.push(nodesDir);
      for (const [i, shards] of shardRanges(CRASH.shards, CRASH.nodes).entries()) {
        nodes.push(await startStorageNodeProcess({ dataDir: join(nodesDir.path, `node-${i}`), shards, nShards: CRASH.shards }));
      }
    }
    const remote = nodes.length > 0 ? ['--storage-nodes', nodes.map((n) => n.url).join(',')] : [];
    const start = () => startTusk({ dataDir: dir.path, root, durability: 'strict', publisherListen: '127.0.0.1:0', extraArgs: [...CRASH.args, ...remote] });
    let crashy = await start();
    // only the md5 of each body stays in memory (1 GiB of bodies would not)
    const sums = new Map<string, string>();
    const readBack = async (keys: string[], when: string) =>
      runBounded(keys, 4, async (key) => {
        const res = await s3Request(crashy, { method: 'GET', bucket, key });
        expect(res.status, `${when}: ${key}`).toBe(200);
        expect(md5(res.body), `${when}: ${key}`).toBe(sums.get(key));
      });
    try {
      expect((await s3Request(crashy, { method: 'PUT', bucket })).status).toBe(200);
      const sizes = CRASH.objects.flatMap(({ prefix, count, size }) => Array.from({ length: count }, (_, i) => [`${prefix}${i}`, size(i)] as const));
      await runBounded(sizes, 4, async ([key, size]) => {
        const body = randomBody(size);
        sums.set(key, md5(body));
        await put(crashy, bucket, key, body);
      });
      const total = sizes.reduce((sum, [, size]) => sum + size, 0);
      const before = localBytes(dir.path);
      const written = Date.now();
      // how many objects were on WALRUS just before each kill -9
      const killedAt: number[] = [];
      expect((await configure(crashy, bucket, TO_WALRUS)).status).toBe(200);
      const keys = [...sums.keys()];
      for (let round = 0; round < CRASH.kills; round++) {
        // kill while the pass is under way: once it has moved round + 1 objects, or its share of
        // them at scale (kills spread over the first part of the pass), a random moment later
        const s = crashy;
        const moved = Math.max(round + 1, Math.floor((round * keys.length) / (CRASH.kills + 1)));
        await until('the transition under way', s, async () => (await classesOf(s, bucket)).walrus >= Math.min(moved, keys.length - 1), CRASH.waitMs);
        await new Promise((r) => setTimeout(r, Math.floor(rand() * CRASH.jitterMs)));
        killedAt.push((await classesOf(s, bucket)).walrus);
        await crashy.kill9();
        crashy = await start();
        // every object (at scale, a random sample of them) reads back whole, on whichever side it is
        await readBack(CRASH.label === 'issue' ? keys.filter(() => rand() < 0.05) : keys, `round ${round}`);
      }
      const s = crashy;
      await until('every object on WALRUS', s, async () => (await classesOf(s, bucket)).walrus === keys.length, CRASH.waitMs);
      const moved = Date.now();
      if (CRASH.label === 'issue') {
        // compaction gives the local bytes back: the data directory ends below 10% of the bucket
        await until('the data directory below 10% of the bucket', s, async () => localBytes(dir.path) < total / 10, CRASH.waitMs);
      }
      const after = localBytes(dir.path);
      await readBack(keys, 'at the end');
      for (const key of keys.filter(() => rand() < 0.1)) expect((await classOf(s, bucket, key)).cls).toBe('WALRUS');
      console.log(
        `walrus-transition (${CRASH.label}, seed ${seed}): ${keys.length} objects, ${total} bytes written in ${((written - began) / 1000).toFixed(0)} s; ` +
          `${CRASH.kills} kill -9 with ${killedAt.join(', ')} objects moved; all on WALRUS ${((moved - written) / 1000).toFixed(0)} s after the rule; ` +
          `${nodes.length > 0 ? `storage nodes hold ${nodes.reduce((sum, n) => sum + dirBytes(n.dataDir), 0)} bytes; ` : ''}data directory ${before} bytes before, ${after} after${CRASH.label === 'issue' ? ' compaction' : ''} ` +
          `(${((100 * after) / total).toFixed(2)}% of the bucket${nodes.length > 0 ? '' : ', nodes/ excluded'}); all ${keys.length} read back, ${((Date.now() - began) / 1000).toFixed(0)} s in all`,
      );
    } finally {
      await crashy.dispose();
      for (const node of nodes) await node.stop();
    }
  }, CRASH.timeoutMs);
});
