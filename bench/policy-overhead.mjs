#!/usr/bin/env node
// Issue 12 acceptance: authorization costs no measurable throughput. Runs the 4 KiB GET scenario
// against three Tusk servers, alike but for their bucket's policy: none, or a 20-statement policy
// that every request must evaluate (no statement denies; one conditional Deny is checked on each
// GET). In the first policy that Deny is time-bound (aws:CurrentTime); in the second it allows
// loopback only (aws:SourceIp), which costs a uWS call per request that copies the peer address
// out (this uWS build keeps none per connection). Each round starts with the next server (use a
// multiple of 3 for --rounds); reports obj/s and the server's CPU time per GET (all its threads,
// from /proc), which drifts less than throughput on a shared machine. --shared-process puts the
// three buckets in one server instead.
//
//   npm run build && node bench/policy-overhead.mjs [--duration 3s] [--rounds 12] [--shared-process]

import { CreateBucketCommand, PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;
const args = overheadArgs({ count: { type: 'string' }, 'shared-process': { type: 'boolean', default: false } });

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
const variants = { 'no policy': undefined, '20-statement policy': {}, '20 statements, one by aws:SourceIp': { bySourceIp: true } };
const bucketOf = (i) => `policy-bench-${i}`;

// One server per variant (an idle one costs nothing), or with --shared-process all three buckets in
// one server, where the same functions serve every kind and the JIT's state is shared.
const servers = [];
try {
  const names = Object.keys(variants);
  for (let i = 0; i < (args['shared-process'] ? 1 : names.length); i++) {
    servers.push(await startTusk({ accessKeyId, secretAccessKey, args: ['--durability', 'relaxed'], label: 'tusk-policy-bench' }));
  }
  const targets = {};
  for (const [i, label] of names.entries()) {
    const tusk = servers[args['shared-process'] ? 0 : i];
    const bucket = bucketOf(i);
    const s3 = new S3Client({ endpoint: tusk.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    if (variants[label]) await s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: twentyStatementPolicy(bucket, variants[label]) }));
    targets[label] = { tusk, bucket };
  }
  const totals = Object.fromEntries(names.map((k) => [k, []]));
  const cpu = Object.fromEntries(names.map((k) => [k, []]));
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [label, { tusk, bucket }] of roundOrder(targets, round)) {
      const result = await runBench({
        ...DEFAULTS, endpoint: tusk.endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
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
  await Promise.all(servers.map((t) => t.stop()));
}
