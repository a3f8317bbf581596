#!/usr/bin/env node
// Issue 13 acceptance: encryption at rest costs at most 15% of GET and PUT throughput at 1 MiB;
// issue 37: SSE-KMS at least 80% of SSE-S3's rate. One Tusk process, three buckets: plain, default
// encryption SSE-S3 (AES256), and default encryption SSE-KMS (aws:kms under a customer key made
// through the admin API), so that the same scenario runs against each; rounds (rotating which goes
// first) of PUT, then of GET; obj/s of each and its ratio to plaintext and to SSE-S3.
//
// Before the PUT rounds an unmeasured PUT phase (--settle) fills the page cache with dirty pages,
// so that the first round does not run faster than the others while the disk has not started
// writing back (it was ~1.6× the rest).
//
//   npm run build && node bench/sse-overhead.mjs [--duration 5s] [--rounds 4] [--concurrency 8] [--settle 10s]

import { createHash } from 'node:crypto';
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
  const buckets = { plaintext: 'sse-bench-plain', 'SSE-S3': 'sse-bench-sealed', 'SSE-KMS': 'sse-bench-kms' };
  for (const b of Object.values(buckets)) await s3.send(new CreateBucketCommand({ Bucket: b }));
  await s3.send(new PutBucketEncryptionCommand({
    Bucket: buckets['SSE-S3'],
    ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
  }));
  const keyArn = await createKmsKey(endpoint, { accessKeyId, secretAccessKey });
  await s3.send(new PutBucketEncryptionCommand({
    Bucket: buckets['SSE-KMS'],
    ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn } }] },
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
    const sseS3 = mean(totals['SSE-S3']);
    for (const [label, xs] of Object.entries(totals)) {
      rows.push([op.toUpperCase(), label, xs.map((x) => fixed(x, 1)).join(', '), fixed(mean(xs), 1), `${fixed(mean(xs) / base, 2)}×`, `${fixed(mean(xs) / sseS3, 2)}×`]);
    }
  }
  console.log(markdownTable(['op', 'bucket', 'obj/s per round', 'mean obj/s', 'vs plaintext', 'vs SSE-S3'], rows));
} finally {
  await tusk.stop();
}

/** A customer key through the admin API (POST /tusk/admin/v1/kms/keys, signed with the root key); its ARN. */
async function createKmsKey(endpoint, credentials) {
  const { SigV4Signer } = await import('../dist/bench/sigv4-client.js');
  const url = new URL('/tusk/admin/v1/kms/keys', endpoint);
  const body = JSON.stringify({ description: 'sse-overhead bench' });
  const headers = { host: url.host, 'content-type': 'application/json' };
  new SigV4Signer({ ...credentials, region: 'us-east-1' }).sign({
    method: 'POST', path: url.pathname, query: '', headers, payloadHash: createHash('sha256').update(body).digest('hex'),
  });
  const res = await fetch(url, { method: 'POST', headers, body });
  if (res.status !== 201) throw new Error(`creating the KMS key: ${res.status} ${await res.text()}`);
  return (await res.json()).key.Arn;
}
