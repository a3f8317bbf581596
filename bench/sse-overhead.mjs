#!/usr/bin/env node
// Issue 13 acceptance: encryption at rest costs at most 15% of GET and PUT throughput at 1 MiB.
// One Tusk process, two buckets: one plain, one with default encryption (SSE-S3, AES256), so that
// the same scenario runs against both; A/B rounds (alternating which goes first) of PUT, then of GET; obj/s of each
// and their ratio.
//
// Before the PUT rounds an unmeasured PUT phase (--settle) fills the page cache with dirty pages,
// so that the first round does not run faster than the others while the disk has not started
// writing back (it was ~1.6× the rest).
//
//   npm run build && node bench/sse-overhead.mjs [--duration 5s] [--rounds 4] [--concurrency 8] [--settle 10s]

import { CreateBucketCommand, PutBucketEncryptionCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const args = overheadArgs({ concurrency: { type: 'string', default: '8' }, size: { type: 'string', default: '1MiB' }, settle: { type: 'string', default: '10s' } });

const accessKeyId = 'TUSKSSEBENCH00000001';
const secretAccessKey = 'sse-bench-secret-sse-bench-secret';
const tusk = await startTusk({ accessKeyId, secretAccessKey, label: 'tusk-sse-bench' });
const { endpoint } = tusk;
try {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  const buckets = { plaintext: 'sse-bench-plain', 'SSE-S3': 'sse-bench-sealed' };
  for (const b of Object.values(buckets)) await s3.send(new CreateBucketCommand({ Bucket: b }));
  await s3.send(new PutBucketEncryptionCommand({
    Bucket: buckets['SSE-S3'],
    ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
  }));
  const rows = [];
  const run = (op, bucket, label, durationMs) => runBench({
    ...DEFAULTS, endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
    mix: { [op]: 1 }, sizes: parseSizeDistribution(args.size), concurrency: Number(args.concurrency), objects: 64,
    durationMs, warmupMs: milliseconds(args.warmup), keep: false, label, client: 'raw', quiet: true,
  });
  await run('put', buckets.plaintext, 'settle', milliseconds(args.settle));
  for (const op of ['put', 'get']) {
    const totals = Object.fromEntries(Object.keys(buckets).map((k) => [k, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [label, bucket] of roundOrder(buckets, round)) {
        const result = await run(op, bucket, label, milliseconds(args.duration));
        if (result.total.errorCount) throw new Error(`${label} ${op}: ${JSON.stringify(result.total.errors)}`);
        totals[label].push(result.total.objPerSec);
      }
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(totals.plaintext);
    for (const [label, xs] of Object.entries(totals)) {
      rows.push([op.toUpperCase(), label, xs.map((x) => fixed(x, 1)).join(', '), fixed(mean(xs), 1), `${fixed(mean(xs) / base, 2)}×`]);
    }
  }
  console.log(markdownTable(['op', 'bucket', 'obj/s per round', 'mean obj/s', 'vs plaintext'], rows));
} finally {
  await tusk.stop();
}
