#!/usr/bin/env node
// Issue 15, item 5: the aggregator's reads on several threads. Two `tusk serve` alike but for
// --threads (1 and 2 by default), each with its publisher (n shards, 10 in-process nodes) holding a
// set of stored blobs; wrk reads them back (GET /v1/blobs/<id>, cycling over the blobs), rounds
// rotating which server goes first. Reports reads/s, MiB/s and the server's CPU time per read (all
// its threads, the RS2 decoding pool included, from /proc). wrk shares the machine with the server.
//
//   npm run build && node bench/publisher-threads.mjs [--threads 1,2] [--sizes 64KiB,1MiB] [--blobs 16]
//       [--n-shards 1000] [--duration 5s] [--rounds 3] [--connections 16]

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackages } from '../scripts/build-native.mjs';
import { benchLib, milliseconds, overheadArgs, roundOrder, startTusk, wrkRate } from './tusk-process.mjs';

const { parseByteSize, markdownTable, fixed } = benchLib;
const args = overheadArgs({
  threads: { type: 'string', default: '1,2' },
  sizes: { type: 'string', default: '64KiB,1MiB' },
  blobs: { type: 'string', default: '16' },
  'n-shards': { type: 'string', default: '1000' },
  connections: { type: 'string', default: '16' },
  rounds: { type: 'string', default: '3' },
});
const counts = args.threads.split(',').map(Number);
const sizes = args.sizes.split(',').map((s) => [s, parseByteSize(s)]);

ensureDebianPackages(['wrk']);
const work = await mkdtemp(join(tmpdir(), 'tusk-publisher-threads-bench-'));
const replay = join(work, 'replay.lua');
await writeFile(replay, `local paths = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
end
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
`);

// a 1 MiB read at n = 1000 with 16 in flight can take longer than wrk's default 2 s
const wrk = (url, file) => wrkRate(url, { script: replay, file, connections: args.connections, durationMs: milliseconds(args.duration), timeout: '30s' });

const servers = [];
try {
  const targets = {};
  for (const n of counts) {
    const maxBlob = Math.max(...sizes.map(([, b]) => b));
    const tusk = await startTusk({
      accessKeyId: 'TUSKPUBLISHERBENCH01',
      secretAccessKey: 'publisher-threads-bench-secret-000000000',
      args: ['--durability', 'relaxed', '--threads', String(n), '--publisher-listen', '127.0.0.1:0', '--n-shards', args['n-shards'], '--max-blob-size', String(maxBlob + 1024)],
      label: 'tusk-publisher-threads-bench',
    });
    servers.push(tusk);
    const url = /publisher listening on (http:\/\/[^\s"]+)/.exec(tusk.startOutput)[1];
    const key = /publisher endpoint key: ([^\s"]+)/.exec(tusk.startOutput)[1];
    const files = {};
    for (const [label, bytes] of sizes) {
      const paths = [];
      for (let b = 0; b < Number(args.blobs); b++) {
        const blob = randomBytes(bytes);
        const put = await fetch(`${url}/${key}/v1/blobs`, { method: 'PUT', body: blob });
        if (put.status !== 200) throw new Error(`store: ${put.status} ${await put.text()}`);
        const id = (await put.json()).newlyCreated.blobObject.blobId;
        const back = Buffer.from(await (await fetch(`${url}/v1/blobs/${id}`)).arrayBuffer());
        if (!back.equals(blob)) throw new Error(`blob ${id} read back different`);
        paths.push(`/v1/blobs/${id}`);
      }
      files[label] = join(work, `t${n}-${label}.txt`);
      await writeFile(files[label], `${paths.join('\n')}\n`);
    }
    targets[`--threads ${n}`] = { tusk, url, files };
  }
  const rows = [];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [sizeLabel, bytes] of sizes) {
    const rate = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    const cpu = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [label, { tusk, url, files }] of roundOrder(targets, round)) {
        const before = tusk.cpuMs();
        const perSecond = await wrk(url, files[sizeLabel]);
        rate[label].push(perSecond);
        cpu[label].push(((tusk.cpuMs() - before) * 1000) / (perSecond * (milliseconds(args.duration) / 1000)));
      }
    }
    const base = mean(Object.values(rate)[0]);
    for (const label of Object.keys(targets)) {
      rows.push([`${sizeLabel} read`, label, rate[label].map((x) => fixed(x, 0)).join(', '), fixed(mean(rate[label]), 1),
        fixed((mean(rate[label]) * bytes) / (1 << 20), 1), `${fixed(mean(rate[label]) / base, 2)}×`, `${fixed(mean(cpu[label]) / 1000, 2)} ms`]);
    }
  }
  console.log(`n_shards ${args['n-shards']}, ${args.blobs} blobs per size; ${args.rounds} rounds of ${args.duration}; ${args.connections} connections; wrk on the same machine`);
  console.log(markdownTable(['scenario', 'server', 'reads/s per round', 'mean reads/s', 'MiB/s', 'vs first', 'server CPU per read'], rows));
} finally {
  await Promise.all(servers.map((t) => t.stop()));
  await rm(work, { recursive: true, force: true });
}
