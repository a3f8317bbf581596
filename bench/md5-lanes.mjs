#!/usr/bin/env node
// Aggregate MD5 throughput of concurrent upload streams through Hasher.updateAsync: 1, 2, 4, 8 and
// 16 streams, each feeding 512 KiB chunks with at most 8 in flight (the 4 MiB window of an S3
// upload), hashed one stream per thread-pool job ("scalar": setHashScheduling({ lanes: 1 }), the
// scalar MD5 of one stream at a time) or with the streams' MD5s advanced together in SIMD lanes
// ("lanes": up to 16 per job, the default). Reports wall-clock MiB/s, MiB per CPU-second of the
// whole process (main thread and thread pool: the cost per core) and the hashers per job.
// Checks every digest of a short run against node:crypto before timing anything.
//
// usage: npm run build && node bench/md5-lanes.mjs [--streams 1,2,4,8,16] [--mib 256]
//          [--modes scalar,lanes] [--mask md5|md5+sha256|md5+crc32c|...] [--reps 1] [--jobs N]
//   --mib: data hashed per configuration, over all its streams; --jobs: jobs in flight (default:
//   the scheduler's, cores capped by the libuv pool size). TUSK_DIST_DIR picks the compiled
//   sources (default dist/); TUSK_NATIVE_PATH the native module.
import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const distDir = process.env.TUSK_DIST_DIR ? pathToFileURL(`${process.env.TUSK_DIST_DIR}/`) : new URL('../dist/', import.meta.url);
const { DIGEST, Hasher, hashSchedulingStats, resetHashSchedulingStats, setHashScheduling, simdPaths } = await import(
  new URL('native.js', distDir).href
);

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '1,2,4,8,16' },
    mib: { type: 'string', default: '256' },
    modes: { type: 'string', default: 'scalar,lanes' },
    mask: { type: 'string', default: 'md5' },
    reps: { type: 'string', default: '1' },
    jobs: { type: 'string' },
  },
});
const MiB = 1 << 20;
const CHUNK = 512 * 1024;
const WINDOW = 8;
const MODES = { scalar: { lanes: 1 }, lanes: { lanes: 16 } };
const mask = args.mask.split('+').reduce((m, name) => {
  const bit = DIGEST[name.toUpperCase()];
  if (bit === undefined) throw new Error(`unknown digest ${name}`);
  return m | bit;
}, 0);
if (!(mask & DIGEST.MD5)) throw new Error('--mask must include md5');

/** Each stream cycles through its own 4 MiB of random chunks: 16 streams do not fit in cache. */
function streamChunks(count) {
  return Array.from({ length: count }, () => Array.from({ length: WINDOW }, () => randomBytes(CHUNK)));
}

/** Feeds `chunksEach` chunks to each hasher as an upload does; resolves when all are hashed. */
async function feed(hashers, chunks, chunksEach) {
  await Promise.all(
    hashers.map(async (h, s) => {
      const inFlight = [];
      for (let i = 0; i < chunksEach; i++) {
        inFlight.push(h.updateAsync(chunks[s][i % WINDOW]));
        if (inFlight.length >= WINDOW) await inFlight.shift();
      }
      await Promise.all(inFlight);
    }),
  );
}

async function verify(mode) {
  setHashScheduling(MODES[mode]);
  const chunks = streamChunks(5);
  const hashers = chunks.map(() => new Hasher(mask));
  await feed(hashers, chunks, 11);
  hashers.forEach((h, s) => {
    const want = createHash('md5');
    for (let i = 0; i < 11; i++) want.update(chunks[s][i % WINDOW]);
    if (h.digest().md5.toString('hex') !== want.digest('hex')) throw new Error(`${mode}: stream ${s} MD5 differs from node:crypto`);
  });
}

async function measure(mode, streams, chunks) {
  setHashScheduling(MODES[mode]);
  const chunksEach = Math.max(1, Math.round((Number(args.mib) * MiB) / CHUNK / streams));
  const hashers = Array.from({ length: streams }, () => new Hasher(mask));
  resetHashSchedulingStats();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await feed(hashers, chunks, chunksEach);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  for (const h of hashers) h.digest();
  const mib = (streams * chunksEach * CHUNK) / MiB;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const stats = hashSchedulingStats();
  return { mib, seconds, cpuSeconds, perJob: stats.updates / stats.jobs };
}

const defaults = setHashScheduling(args.jobs ? { jobs: Number(args.jobs) } : {});
const { jobs } = setHashScheduling({});
const paths = simdPaths();
console.log(`MD5 ${paths.md5}, SHA-256 ${paths.sha256}; ${jobs} jobs in flight, mask ${args.mask}, ${args.mib} MiB per run`);
const modes = args.modes.split(',');
for (const mode of modes) await verify(mode);
const rows = [];
for (const streams of args.streams.split(',').map(Number)) {
  const chunks = streamChunks(streams);
  const best = {};
  for (let rep = 0; rep < Number(args.reps); rep++) {
    for (const mode of modes) {
      const r = await measure(mode, streams, chunks);
      // Best of the repetitions by CPU cost: the machine may be shared.
      if (!best[mode] || r.cpuSeconds / r.mib < best[mode].cpuSeconds / best[mode].mib) best[mode] = r;
    }
  }
  for (const mode of modes) {
    const r = best[mode];
    const row = {
      streams,
      mode,
      'MiB/s': Math.round(r.mib / r.seconds),
      'MiB per CPU-s': Math.round(r.mib / r.cpuSeconds),
      'CPU ms per GiB': Math.round((r.cpuSeconds / r.mib) * 1024 * 1000),
      'hashers per job': Number(r.perJob.toFixed(2)),
    };
    if (mode !== modes[0]) row['vs first (CPU)'] = Number((best[modes[0]].cpuSeconds / best[modes[0]].mib / (r.cpuSeconds / r.mib)).toFixed(2));
    rows.push(row);
  }
}
setHashScheduling(defaults);
console.table(rows);
