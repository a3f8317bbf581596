// Micro benchmark: the native fused digest pass vs node:crypto / zlib / AWS SDK JS references,
// on 4 KiB, 1 MiB and 64 MiB buffers. Verifies native == reference before timing anything.
// Run: npx vitest bench --run --passWithNoTests bench/micro/digest.bench.ts
//   vitest only loads the file (TypeScript, no build step); the timing is plain tinybench v6, so
//   vitest reports no benchmarks of its own, hence --passWithNoTests.
//   DIGEST_BENCH_SIZES=4096,1048576 picks sizes; DIGEST_BENCH_TIME_MS is the time per task (400);
//   DIGEST_BENCH_CLOCK=cpu times with process CPU time instead of wall time (steadier on a busy
//   machine; counts the thread-pool thread too, so the updateAsync row shows its CPU cost).
//   Needs the native module: node scripts/build-native.mjs
import { createHash, randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32c as awsCrc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import { Bench } from 'tinybench';
import { DIGEST, DIGEST_ALL, Hasher, digestSync, simdPaths } from '../../src/native/native.js';
import { selfTest } from '../../src/native/self-test.js';

const SIZES = (process.env.DIGEST_BENCH_SIZES ?? `${4 << 10},${1 << 20},${64 << 20}`).split(',').map(Number);
const TIME_MS = Number(process.env.DIGEST_BENCH_TIME_MS ?? 400);
const CPU_CLOCK = process.env.DIGEST_BENCH_CLOCK === 'cpu';

function cpuNowMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const ALONE: Record<string, number> = {
  md5: DIGEST.MD5,
  sha256: DIGEST.SHA256,
  sha1: DIGEST.SHA1,
  crc32: DIGEST.CRC32,
  crc32c: DIGEST.CRC32C,
  crc64nvme: DIGEST.CRC64NVME,
};
const FUSED: Record<string, number> = {
  'md5+crc32c+crc64nvme': DIGEST.MD5 | DIGEST.CRC32C | DIGEST.CRC64NVME,
  'md5+sha256': DIGEST.MD5 | DIGEST.SHA256,
  'all six': DIGEST_ALL,
};

async function crc64Reference(data: Uint8Array): Promise<bigint> {
  const c = new Crc64Nvme();
  c.update(data);
  return Buffer.from(await c.digest()).readBigUInt64BE();
}

async function verify(data: Buffer): Promise<void> {
  const d = digestSync(data, DIGEST_ALL);
  const checks: [string, unknown, unknown][] = [
    ['md5', d.md5?.toString('hex'), createHash('md5').update(data).digest('hex')],
    ['sha256', d.sha256?.toString('hex'), createHash('sha256').update(data).digest('hex')],
    ['sha1', d.sha1?.toString('hex'), createHash('sha1').update(data).digest('hex')],
    ['crc32', d.crc32, zlibCrc32(data)],
    ['crc32c', d.crc32c, awsCrc32c(data)],
    ['crc64nvme', d.crc64nvme, await crc64Reference(data)],
  ];
  for (const [name, got, want] of checks) {
    if (got !== want) throw new Error(`native ${name} of ${data.length} bytes is ${got}, reference says ${want}`);
  }
}

function sizeLabel(n: number): string {
  return n >= 1 << 20 ? `${n / (1 << 20)} MiB` : `${n / 1024} KiB`;
}

async function runSize(size: number): Promise<Record<string, string | number>[]> {
  const data = randomBytes(size);
  await verify(data);
  // Enough samples for a stable mean without spending minutes on 64 MiB inputs.
  const b = new Bench({
    time: TIME_MS,
    iterations: size >= 16 << 20 ? 4 : 32,
    warmupIterations: 2,
    ...(CPU_CLOCK ? { now: cpuNowMs } : {}),
  });
  for (const [name, mask] of Object.entries(ALONE)) b.add(`native ${name}`, () => void digestSync(data, mask));
  for (const [name, mask] of Object.entries(FUSED)) b.add(`native fused ${name}`, () => void digestSync(data, mask));
  b.add('native fused md5+sha256 updateAsync (thread pool)', async () => {
    const h = new Hasher(FUSED['md5+sha256']!, { inlineMax: 0 });
    await h.updateAsync(data);
    h.digest();
  });
  b.add('node:crypto md5', () => void createHash('md5').update(data).digest());
  b.add('node:crypto sha256', () => void createHash('sha256').update(data).digest());
  b.add('node:crypto sha1', () => void createHash('sha1').update(data).digest());
  b.add('node:crypto md5 then sha256', () => {
    createHash('md5').update(data).digest();
    createHash('sha256').update(data).digest();
  });
  b.add('zlib crc32', () => void zlibCrc32(data));
  if (size <= 1 << 20) {
    // Pure-JS references: too slow to time on 64 MiB.
    b.add('@aws-crypto/crc32c (JS)', () => void awsCrc32c(data));
    b.add('@aws-sdk/crc64-nvme', async () => void (await crc64Reference(data)));
  }
  await b.run();
  return b.tasks.map((t) => {
    const r = t.result;
    const meanMs = 'latency' in r ? r.latency.mean : NaN;
    return {
      size: sizeLabel(size),
      task: t.name,
      'mean ms': Number(meanMs.toFixed(4)),
      'GB/s': Number((size / (meanMs * 1e6)).toFixed(3)),
      samples: 'latency' in r ? r.latency.samplesCount : 0,
    };
  });
}

async function main(): Promise<void> {
  selfTest();
  console.log('SIMD paths:', simdPaths(), CPU_CLOCK ? '(timed in process CPU time)' : '(timed in wall time)');
  const rows: Record<string, string | number>[] = [];
  for (const size of SIZES) rows.push(...(await runSize(size)));
  console.table(rows);
}

await main();
