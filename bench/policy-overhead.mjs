#!/usr/bin/env node
// Issue 12 acceptance: authorization costs no measurable throughput. Runs the 4 KiB GET scenario
// against one Tusk process on three buckets: one without a policy, and two with a 20-statement
// bucket policy that every request must evaluate (no statement denies; one conditional Deny is
// checked on each GET). In the first that Deny is time-bound (aws:CurrentTime); in the second it
// allows loopback only (aws:SourceIp), which costs a getpeername system call per request: this uWS
// build keeps no peer address per connection. Each round starts with the next bucket (use a
// multiple of 3 for --rounds); reports obj/s of each and the ratio to no policy, and the server's
// CPU time per GET (all its threads, from /proc), which drifts less than throughput on a shared machine.
//
//   npm run build && node bench/policy-overhead.mjs [--duration 5s] [--rounds 6]

import { CreateBucketCommand, PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const args = overheadArgs({ count: { type: 'string' } });

/**
 * 20 statements: 18 allows for other accounts and prefixes, one public read of another prefix, and
 * one Deny whose condition never holds here: after the year 2999, or (`bySourceIp`) off loopback.
 */
export function twentyStatementPolicy(bucket, { bySourceIp = false } = {}) {
  const arn = `arn:aws:s3:::${bucket}`;
  const statements = [];
  for (let i = 0; i < 18; i++) {
    statements.push({
      Sid: `partner${i}`, Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${String(100000000000 + i)}:root` },
      Action: ['s3:GetObject', 's3:PutObject', 's3:List*'], Resource: [`${arn}/partner-${i}/*`, arn],
      Condition: { StringLike: { 's3:prefix': [`partner-${i}/*`] }, DateLessThan: { 'aws:CurrentTime': '2999-01-01T00:00:00Z' } },
    });
  }
  statements.push(bySourceIp
    ? { Sid: 'loopback-only', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: [`${arn}/*`], Condition: { NotIpAddress: { 'aws:SourceIp': ['127.0.0.0/8', '::1/128', '::ffff:127.0.0.0/104'] } } }
    : { Sid: 'until-2999', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: [`${arn}/*`], Condition: { DateGreaterThan: { 'aws:CurrentTime': '2999-01-01T00:00:00Z' } } });
  statements.push({ Sid: 'public', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${arn}/public/*` });
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}

const accessKeyId = 'TUSKPOLICYBENCH00001';
const secretAccessKey = 'policy-bench-secret-policy-bench-secret';
const tusk = await startTusk({ accessKeyId, secretAccessKey, args: ['--durability', 'relaxed'], label: 'tusk-policy-bench' });
const { endpoint } = tusk;

try {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  const buckets = { 'no policy': 'policy-bench-plain', '20-statement policy': 'policy-bench-policy', '20 statements, one by aws:SourceIp': 'policy-bench-source-ip' };
  for (const b of Object.values(buckets)) await s3.send(new CreateBucketCommand({ Bucket: b }));
  await s3.send(new PutBucketPolicyCommand({ Bucket: buckets['20-statement policy'], Policy: twentyStatementPolicy(buckets['20-statement policy']) }));
  const bySourceIp = buckets['20 statements, one by aws:SourceIp'];
  await s3.send(new PutBucketPolicyCommand({ Bucket: bySourceIp, Policy: twentyStatementPolicy(bySourceIp, { bySourceIp: true }) }));
  const totals = Object.fromEntries(Object.keys(buckets).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(buckets).map((k) => [k, []]));
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [label, bucket] of roundOrder(buckets, round)) {
      const result = await runBench({
        ...DEFAULTS, endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
        mix: { get: 1 }, sizes: parseSizeDistribution('4KiB'), concurrency: 16, objects: 1000,
        durationMs: milliseconds(args.duration), warmupMs: milliseconds(args.warmup), count: args.count ? Number(args.count) : undefined,
        keep: false, label, client: 'raw', serverCpuMs: tusk.cpuMs,
      });
      if (result.total.errorCount) throw new Error(`${label}: ${JSON.stringify(result.total.errors)}`);
      totals[label].push(result.total.objPerSec);
      cpu[label].push((result.serverCpuMs * 1000) / result.total.ok);
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = mean(totals['no policy']);
  const baseCpu = mean(cpu['no policy']);
  console.log(markdownTable(['bucket', 'obj/s per round', 'mean obj/s', 'vs no policy', 'server CPU per GET', 'vs no policy'],
    Object.entries(totals).map(([label, xs]) => [
      label, xs.map((x) => fixed(x, 0)).join(', '), fixed(mean(xs), 0), `${fixed((mean(xs) / base) * 100, 1)}%`,
      `${fixed(mean(cpu[label]), 1)} µs`, `${fixed((mean(cpu[label]) / baseCpu) * 100, 1)}%`,
    ])));
} finally {
  await tusk.stop();
}
