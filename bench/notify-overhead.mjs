#!/usr/bin/env node
// Issue 35 acceptance: bucket notifications are cheap. 4 KiB PUT rate to three buckets, measured in
// rotating rounds of one run: a bucket whose NotificationConfiguration sends every ObjectCreated
// event to a webhook (a receiver in a child process, answering 200 at once), a bucket of the same
// server without a configuration, and a bucket of a server with no notification target declared.
// Verifies before it times: one PUT to the webhook bucket arrives at the receiver as its event; and
// after the rounds, the target's status (admin API) shows nothing pending, dropped or failed, and
// the receiver got exactly the events the target counts as delivered. Reports obj/s, the server's CPU per PUT (/proc) and the POSTs the receiver got, as a table and as JSON lines in
// bench/results/notify-overhead.jsonl.
//
//   npm run build && node bench/notify-overhead.mjs [--duration 5s] [--rounds 4] [--durability strict|relaxed] [--concurrency 16]

import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutBucketNotificationConfigurationCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AwsClient } from 'aws4fetch';
import { benchLib, milliseconds, overheadArgs, repo, roundOrder, startTusk } from './tusk-process.mjs';

const { runBench, parseSizeDistribution, markdownTable, fixed, DEFAULTS } = benchLib;

// the webhook receiver: a child process (its work is not the load generator's), counting the events it got
if (process.argv[2] === '--receiver') {
  const http = await import('node:http');
  let events = 0;
  let posts = 0;
  const keys = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      posts++;
      for (const r of body.Records ?? []) {
        events++;
        if (keys.size < 10) keys.add(r.s3.object.key);
      }
      res.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => {
    if (m === 'count') process.send({ events, posts, keys: [...keys] });
  });
} else {
  await main();
}

async function main() {
  const loadBefore = loadavg()[0];
  const args = overheadArgs({ durability: { type: 'string', default: 'strict' }, concurrency: { type: 'string', default: '16' } });
  const receiver = fork(new URL(import.meta.url).pathname, ['--receiver'], { stdio: 'inherit' });
  const ask = (what) => new Promise((resolve) => {
    receiver.once('message', resolve);
    if (what) receiver.send(what);
  });
  const { port } = await ask();
  const accessKeyId = 'TUSKNOTIFYBENCH00001';
  const secretAccessKey = 'notify-bench-secret-notify-bench-secret';
  const base = ['--durability', args.durability];
  const servers = [];
  try {
    const notifying = await startTusk({ accessKeyId, secretAccessKey, args: [...base, '--notify-webhook', `hook=http://127.0.0.1:${port}/`], label: 'tusk-notify-bench' });
    servers.push(notifying);
    const plain = await startTusk({ accessKeyId, secretAccessKey, args: base, label: 'tusk-notify-bench' });
    servers.push(plain);
    const client = (tusk) => new S3Client({ endpoint: tusk.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    const targets = {
      'webhook configured': { tusk: notifying, bucket: 'notify-webhook' },
      'no configuration (same server)': { tusk: notifying, bucket: 'notify-none' },
      'no notification target declared': { tusk: plain, bucket: 'notify-plain' },
    };
    for (const { tusk, bucket } of Object.values(targets)) await client(tusk).send(new CreateBucketCommand({ Bucket: bucket }));
    await client(notifying).send(new PutBucketNotificationConfigurationCommand({
      Bucket: 'notify-webhook',
      NotificationConfiguration: { QueueConfigurations: [{ Id: 'bench', QueueArn: 'arn:tusk:sqs:us-east-1:hook:webhook', Events: ['s3:ObjectCreated:*'] }] },
    }));

    // verify before timing: one PUT arrives as its event
    await client(notifying).send(new PutObjectCommand({ Bucket: 'notify-webhook', Key: 'verify/one', Body: 'x' }));
    for (let i = 0; ; i++) {
      const { keys } = await ask('count');
      if (keys.includes('verify%2Fone')) break;
      if (i > 100) throw new Error('the webhook never got the verification PUT\'s event');
      await new Promise((r) => setTimeout(r, 50));
    }

    const names = Object.keys(targets);
    const rates = Object.fromEntries(names.map((k) => [k, []]));
    const cpu = Object.fromEntries(names.map((k) => [k, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [label, { tusk, bucket }] of roundOrder(targets, round)) {
        const result = await runBench({
          ...DEFAULTS, endpoint: tusk.endpoint, accessKeyId, secretAccessKey, region: 'us-east-1', addressing: 'path', bucket,
          mix: { put: 1 }, sizes: parseSizeDistribution('4KiB'), concurrency: Number(args.concurrency), objects: 1000,
          durationMs: milliseconds(args.duration), warmupMs: milliseconds(args.warmup), keep: false, label, client: 'raw', quiet: true,
          serverCpuMs: tusk.cpuMs,
        });
        if (result.total.errorCount) throw new Error(`${label}: ${JSON.stringify(result.total.errors)}`);
        rates[label].push(result.total.objPerSec);
        cpu[label].push((result.serverCpuMs * 1000) / result.total.ok);
      }
    }

    // after timing: the target has nothing pending, dropped or failed, and the receiver got what it delivered
    const admin = new AwsClient({ accessKeyId, secretAccessKey, service: 's3', region: 'us-east-1' });
    let status;
    for (let i = 0; ; i++) {
      // the admin API wants the payload signed: the SHA-256 of the empty body
      const res = await admin.fetch(`${notifying.endpoint}/tusk/admin/v1/notify`, { headers: { 'x-amz-content-sha256': createHash('sha256').digest('hex') } });
      if (!res.ok) throw new Error(`admin API: ${res.status} ${await res.text()}`);
      [status] = (await res.json()).targets;
      if (status.pending === 0) break;
      if (i > 600) throw new Error(`the webhook target still has ${status.pending} events pending`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const { events: delivered, posts } = await ask('count');
    if (status.dropped || status.failed || delivered !== status.delivered) {
      throw new Error(`webhook: ${JSON.stringify(status)}, receiver got ${delivered} events`);
    }

    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const reference = mean(rates['no notification target declared']);
    const referenceCpu = mean(cpu['no notification target declared']);
    console.log(markdownTable(['bucket', 'obj/s per round', 'mean obj/s', 'vs no target', 'server CPU per PUT', 'vs no target'],
      names.map((label) => [
        label, rates[label].map((x) => fixed(x, 0)).join(', '), fixed(mean(rates[label]), 0), `${fixed((mean(rates[label]) / reference) * 100, 1)}%`,
        `${fixed(mean(cpu[label]), 1)} µs`, `${fixed((mean(cpu[label]) / referenceCpu) * 100, 1)}%`,
      ])));
    console.log(`webhook: ${delivered} events received in ${posts} POSTs, as many as delivered; none pending, dropped or failed`);
    const line = {
      date: new Date().toISOString(), machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`, node: process.version,
      durability: args.durability, concurrency: Number(args.concurrency), duration: args.duration, rounds: Number(args.rounds),
      objPerSec: Object.fromEntries(names.map((k) => [k, rates[k]])),
      serverCpuUsPerPut: Object.fromEntries(names.map((k) => [k, cpu[k]])),
      webhookVsNoTarget: mean(rates['webhook configured']) / reference,
      noConfigVsNoTarget: mean(rates['no configuration (same server)']) / reference,
      webhookEventsDelivered: delivered,
      webhookPosts: posts,
      // the machine is shared: the 1-minute load average at the start and at the end of the run
      loadAverage1m: [loadBefore, loadavg()[0]],
    };
    appendFileSync(join(repo, 'bench', 'results', 'notify-overhead.jsonl'), `${JSON.stringify(line)}\n`);
  } finally {
    await Promise.all(servers.map((t) => t.stop()));
    receiver.kill();
  }
}
