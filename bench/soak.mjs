// Memory soak: one Tusk process under a steady mixed load on both faces for --duration, its RSS
// sampled from /proc every --sample. The load keeps the data bounded (a fixed key space, versions
// deleted, uploads completed or aborted, few small blobs), so what grows is memory, not data.
//
//   node bench/soak.mjs --duration 60m --sample 30s > soak.jsonl
//
// One JSON line per sample ({t, rssMiB, ops, errors}), then a summary line: RSS at 5, 15, 30 and 60
// minutes (those reached), the highest, and the growth per minute over the last half of the run.
// Any 5xx, and any answer a step does not expect, counts as an error and is printed on stderr.

import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  ListObjectsV2Command,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { milliseconds, startTusk } from './tusk-process.mjs';

const args = parseArgs({
  options: {
    duration: { type: 'string', default: '10m' },
    sample: { type: 'string', default: '30s' },
    connections: { type: 'string', default: '8' },
  },
}).values;
const durationMs = milliseconds(args.duration.endsWith('m') ? `${parseFloat(args.duration) * 60}s` : args.duration);
const sampleMs = milliseconds(args.sample);

const credentials = { accessKeyId: 'TUSKSOAK0000000000', secretAccessKey: randomBytes(20).toString('hex') };
const tusk = await startTusk({ ...credentials, args: ['--publisher-listen', '127.0.0.1:0', '--durability', 'relaxed'], label: 'tusk-soak' });
const publisher = /publisher listening on (http:\/\/[^\s"]+)/.exec(tusk.startOutput)?.[1];
const endpointKey = /publisher endpoint key: ([0-9a-f]+)/.exec(tusk.startOutput)?.[1];
console.error(`soak: S3 ${tusk.endpoint}, publisher ${publisher ?? 'not found'} (server pid ${tusk.pid})`);
const s3 = new S3Client({ endpoint: tusk.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });

const KEYS = 400;
const sizes = [1024, 16 * 1024, 256 * 1024, 1024 * 1024, 8 * 1024 * 1024];
const bodies = sizes.map((n) => randomBytes(n));
const pick = (list) => list[Math.floor(Math.random() * list.length)];
let ops = 0;
let errors = 0;

await s3.send(new CreateBucketCommand({ Bucket: 'soak' }));
await s3.send(new CreateBucketCommand({ Bucket: 'soak-versions' }));
await s3.send(new PutBucketVersioningCommand({ Bucket: 'soak-versions', VersioningConfiguration: { Status: 'Enabled' } }));

/** One step of the mix: mostly PUT and GET, some listings, deletes, multipart and publisher stores. */
async function step() {
  const key = `k/${Math.floor(Math.random() * KEYS)}`;
  const dice = Math.random();
  if (dice < 0.35) {
    await s3.send(new PutObjectCommand({ Bucket: pick(['soak', 'soak-versions']), Key: key, Body: pick(bodies) }));
  } else if (dice < 0.7) {
    try {
      const res = await s3.send(new GetObjectCommand({ Bucket: 'soak', Key: key, Range: Math.random() < 0.3 ? 'bytes=0-999' : undefined }));
      await res.Body.transformToByteArray();
    } catch (err) {
      if (err.name !== 'NoSuchKey') throw err;
    }
  } else if (dice < 0.78) {
    await s3.send(new ListObjectsV2Command({ Bucket: 'soak', Prefix: 'k/', MaxKeys: 200 }));
  } else if (dice < 0.86) {
    // keep the versioned bucket bounded: remove every version of one key
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: 'soak-versions', Prefix: key, MaxKeys: 100 }));
    for (const v of [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])]) {
      if (v.Key === key) await s3.send(new DeleteObjectCommand({ Bucket: 'soak-versions', Key: key, VersionId: v.VersionId }));
    }
    await s3.send(new DeleteObjectCommand({ Bucket: 'soak', Key: key }));
  } else if (dice < 0.99 || !publisher || !endpointKey) {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'soak', Key: `mp/${key}` }));
    const part = await s3.send(new UploadPartCommand({ Bucket: 'soak', Key: `mp/${key}`, UploadId, PartNumber: 1, Body: bodies[4] }));
    if (Math.random() < 0.5) {
      await s3.send(new AbortMultipartUploadCommand({ Bucket: 'soak', Key: `mp/${key}`, UploadId }));
    } else {
      await s3.send(new CompleteMultipartUploadCommand({ Bucket: 'soak', Key: `mp/${key}`, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    }
  } else {
    // the publisher has no delete route (as upstream's daemon): few, small blobs keep its data small
    const stored = await fetch(`${publisher}/${endpointKey}/v1/blobs?epochs=1&deletable=true`, { method: 'PUT', body: bodies[1] });
    if (stored.status !== 200) throw new Error(`publisher store: ${stored.status} ${await stored.text()}`);
    const answer = await stored.json();
    const blobId = (answer.newlyCreated?.blobObject ?? answer.alreadyCertified)?.blobId;
    const read = await fetch(`${publisher}/v1/blobs/${blobId}`);
    if (read.status !== 200 || (await read.arrayBuffer()).byteLength !== bodies[1].length) throw new Error(`aggregator read: ${read.status}`);
  }
  ops++;
}

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${tusk.pid}/status`, 'utf8'))[1]) / 1024;
const start = Date.now();
const samples = [];
const sampler = setInterval(() => {
  const sample = { t: Math.round((Date.now() - start) / 1000), rssMiB: Math.round(rssMiB()), ops, errors };
  samples.push(sample);
  console.log(JSON.stringify(sample));
}, sampleMs);

await Promise.all(
  Array.from({ length: Number(args.connections) }, async () => {
    while (Date.now() - start < durationMs) {
      try {
        await step();
      } catch (err) {
        errors++;
        console.error(`soak step: ${err.name ?? ''} ${err.message}`);
      }
    }
  }),
);
clearInterval(sampler);

const at = (minutes) => (samples.at(-1).t >= minutes * 60 ? samples.findLast((s) => s.t <= minutes * 60).rssMiB : undefined);
const half = samples.filter((s) => s.t >= samples.at(-1).t / 2);
const slope = half.length > 1 ? (half.at(-1).rssMiB - half[0].rssMiB) / ((half.at(-1).t - half[0].t) / 60) : 0;
console.log(
  JSON.stringify({
    summary: true,
    durationS: Math.round((Date.now() - start) / 1000),
    ops,
    errors,
    rssMiB: { at5m: at(5), at15m: at(15), at30m: at(30), at60m: at(60), highest: Math.max(...samples.map((s) => s.rssMiB)) },
    growthMiBPerMinuteLastHalf: Number(slope.toFixed(2)),
  }),
);
await tusk.stop();
