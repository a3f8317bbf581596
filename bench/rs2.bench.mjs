#!/usr/bin/env node
// RS2 encode and blob id at n = 1000, Tusk's native codec (worker pool, as the publisher runs it)
// side by side with the reference @mysten/walrus-wasm, for 1, 10 and 64 MiB (walrus.md §14).
// Verifies first: both must give the same blob id for every size, else nothing is timed. Then
// each (implementation, size) runs in its own process so its peak RSS is its own; reports median
// times, MB/s (10^6 bytes of input per second), the speed-up, and peak RSS against the target of
// staying under 2x the encoded size: peak RSS of the first encode of the input in a fresh process,
// above the peak it had with its input generated, the codec open and warmed by encoding a 1-byte
// blob (that is, including the input's copy, excluding the process's one-time set-up).
//
// usage: npm run build && node bench/rs2.bench.mjs [--sizes 1,10,64] [--reps 3] [--n-shards 1000]
//          [--impls native,wasm] [--json FILE]
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const distDir = process.env.TUSK_DIST_DIR ? pathToFileURL(`${process.env.TUSK_DIST_DIR}/`) : new URL('../dist/', import.meta.url);
const MiB = 1 << 20;

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,10,64' },
    reps: { type: 'string', default: '3' },
    'n-shards': { type: 'string', default: '1000' },
    impls: { type: 'string', default: 'native,wasm' },
    json: { type: 'string' },
    // internal: one measurement in a child process
    child: { type: 'string' },
    size: { type: 'string' },
    expect: { type: 'string' },
  },
});
const nShards = Number(args['n-shards']);
const reps = Number(args.reps);

/** Deterministic, incompressible input (xorshift32 words). */
function input(size) {
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return Buffer.from(words.buffer, 0, size);
}

async function loadWasm() {
  try {
    return await import('@mysten/walrus-wasm');
  } catch {
    console.error('bench/rs2.bench.mjs needs @mysten/walrus-wasm@0.3.0 (a devDependency)');
    process.exit(1);
  }
}

async function loadCodec() {
  return import(new URL('publisher/codec.js', distDir).href).catch(() => {
    console.error('bench/rs2.bench.mjs needs the compiled sources: run `npm run build` first');
    process.exit(1);
  });
}

/** An implementation: blobId(data) → base64url id, encode(data) → { id, encodedBytes }, close(). */
async function implementation(name) {
  if (name === 'native') {
    const { openBlobCodec } = await loadCodec();
    const codec = await openBlobCodec();
    return {
      blobId: async (data) => (await codec.blobId(data, nShards)).blobIdText,
      encode: async (data) => {
        const e = await codec.encode(data, nShards);
        // The bytes the encoding occupies: metadata and every sliver's BCS, in one buffer.
        return { id: e.blobIdText, encodedBytes: e.metadataBcs.buffer.byteLength };
      },
      close: () => codec.close(),
    };
  }
  const { BlobEncoder } = await loadWasm();
  const encoder = new BlobEncoder(nShards);
  const f = Math.floor((nShards - 1) / 3);
  const [nPrimary, nSecondary] = [nShards - 2 * f, nShards - f];
  const bcsLength = (dataLength) => {
    let uleb = 1;
    for (let v = dataLength >>> 7; v; v >>>= 7) uleb++;
    return uleb + dataLength + 4;
  };
  return {
    blobId: async (data) => Buffer.from(encoder.compute_metadata(data)[0]).toString('base64url'),
    // As the Walrus TS SDK calls it: caller-allocated BCS buffers for every sliver.
    encode: async (data) => {
      let symbol = Math.ceil(Math.max(data.length, 1) / (nPrimary * nSecondary));
      symbol += symbol % 2;
      const primaries = Array.from({ length: nShards }, () => new Uint8Array(bcsLength(nSecondary * symbol)));
      const secondaries = Array.from({ length: nShards }, () => new Uint8Array(bcsLength(nPrimary * symbol)));
      const [metadata] = encoder.encode(data, primaries, secondaries);
      return { id: Buffer.from(metadata.blob_id).toString('base64url') };
    },
    close: async () => encoder.free(),
  };
}

async function timed(fn, data) {
  const times = [];
  let last;
  for (let i = 0; i < reps; i++) {
    last = undefined;
    globalThis.gc?.(); // so one repetition's garbage does not pile onto the next one's peak
    const t = performance.now();
    last = await fn(data);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], times, last };
}

/** Child: one implementation, one size; checks the expected id, then times; prints JSON. */
async function child() {
  const size = Number(args.size) * MiB;
  const data = input(size);
  const impl = await implementation(args.child);
  // One-time costs (code tables for this n, worker and thread start-up) belong to the process,
  // not to an encode: a 1-byte blob pays them before the baseline is taken.
  await impl.encode(Buffer.alloc(1));
  const baselineRssKiB = process.resourceUsage().maxRSS;
  // The first encode, alone in the process, gives the peak memory of one encode.
  const first = await impl.encode(data);
  if (first.id !== args.expect) throw new Error(`${args.child}: blob id ${first.id}, expected ${args.expect}`);
  const firstPeakKiB = process.resourceUsage().maxRSS;
  const blobId = await timed(impl.blobId, data);
  const encode = await timed(impl.encode, data);
  if (encode.last.id !== args.expect) throw new Error(`${args.child}: encode gave blob id ${encode.last.id}`);
  await impl.close();
  process.stdout.write(
    JSON.stringify({
      blobIdMs: blobId.median,
      encodeMs: encode.median,
      blobIdTimes: blobId.times,
      encodeTimes: encode.times,
      encodedBytes: encode.last.encodedBytes,
      baselineRssMiB: baselineRssKiB / 1024,
      peakRssMiB: firstPeakKiB / 1024,
      peakRssAllRepsMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

function runChild(impl, sizeMiB, expect) {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), '--child', impl, '--size', String(sizeMiB), '--expect', expect, '--reps', String(reps), '--n-shards', String(nShards)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  if (r.status !== 0) throw new Error(`${impl} at ${sizeMiB} MiB failed (exit ${r.status ?? r.signal})`);
  return JSON.parse(r.stdout);
}

async function main() {
  const sizes = args.sizes.split(',').map(Number);
  const impls = args.impls.split(',');
  console.error(`RS2 at n=${nShards}, sizes ${sizes.join(', ')} MiB, median of ${reps}; verifying blob ids first`);

  // Verify before timing: every implementation gives the same id for every size.
  const expected = new Map();
  for (const name of impls) {
    const impl = await implementation(name);
    for (const s of sizes) {
      const id = await impl.blobId(input(s * MiB));
      if (expected.has(s) && expected.get(s) !== id) {
        console.error(`MISMATCH at ${s} MiB: ${name} gives ${id}, ${impls[0]} gave ${expected.get(s)}`);
        process.exit(1);
      }
      expected.set(s, id);
    }
    await impl.close();
  }
  console.error(`blob ids agree: ${sizes.map((s) => `${s} MiB ${expected.get(s)}`).join(', ')}`);

  const rows = [];
  for (const s of sizes) {
    const results = Object.fromEntries(impls.map((name) => [name, runChild(name, s, expected.get(s))]));
    rows.push({ sizeMiB: s, blobId: expected.get(s), ...results });
  }

  const mbps = (sizeMiB, ms) => ((sizeMiB * MiB) / 1e6 / (ms / 1000)).toFixed(1);
  const lines = [
    `| size | op | native ms | native MB/s | wasm ms | wasm MB/s | speed-up | native peak RSS (MiB) | wasm peak RSS (MiB) | encoded (MiB) | native peak − start (MiB) | (peak − start) / encoded |`,
    `|---|---|---|---|---|---|---|---|---|---|---|---|`,
  ];
  for (const r of rows) {
    for (const op of ['blobId', 'encode']) {
      const key = `${op}Ms`;
      const native = r.native?.[key];
      const wasm = r.wasm?.[key];
      const encoded = r.native?.encodedBytes;
      lines.push(
        `| ${r.sizeMiB} MiB | ${op} | ${native?.toFixed(0) ?? '-'} | ${native ? mbps(r.sizeMiB, native) : '-'} | ${wasm?.toFixed(0) ?? '-'} | ${
          wasm ? mbps(r.sizeMiB, wasm) : '-'
        } | ${native && wasm ? `${(wasm / native).toFixed(1)}x` : '-'} | ${op === 'encode' ? (r.native?.peakRssMiB.toFixed(0) ?? '-') : ''} | ${
          op === 'encode' ? (r.wasm?.peakRssMiB.toFixed(0) ?? '-') : ''
        } | ${op === 'encode' && encoded ? (encoded / MiB).toFixed(0) : ''} | ${
          op === 'encode' && encoded ? (r.native.peakRssMiB - r.native.baselineRssMiB).toFixed(0) : ''
        } | ${op === 'encode' && encoded ? `${(((r.native.peakRssMiB - r.native.baselineRssMiB) * MiB) / encoded).toFixed(2)}x` : ''} |`,
      );
    }
  }
  console.log(lines.join('\n'));
  if (args.json) await writeFile(args.json, JSON.stringify({ nShards, reps, rows }, null, 2) + '\n');
}

await (args.child ? child() : main());
