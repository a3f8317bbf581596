#!/usr/bin/env node
// What storing a publish's slivers costs the disk by itself: N bytes written (one pwrite) into new
// page-cache pages of a fresh file, and the same bytes over pages already cached, each followed by
// fdatasync. A 10 MiB blob's slivers are ~50 MB (n = 1000): the floor of what a strict publish
// adds to its encode (issue 14's 1.3x budget at 10 MiB leaves ~29 ms for all of it).
//
// usage: node bench/disk-write.mjs [--mb 50] [--rounds 3] [--dir DIR (default: the OS temp dir)]
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { mb: { type: 'string', default: '50' }, rounds: { type: 'string', default: '3' }, dir: { type: 'string', default: tmpdir() } },
});
const size = Number(args.mb) * 1e6;
const data = randomBytes(size);
const dir = mkdtempSync(join(args.dir, 'tusk-disk-write-'));
const mibPerS = (ms) => (size / 1048576 / (ms / 1000)).toFixed(0);

/** One pwrite of `data` at 0, then fdatasync: both timed. */
function writeAndSync(path) {
  const fd = openSync(path, 'a+');
  try {
    const t0 = performance.now();
    writeSync(fd, data, 0, size, 0);
    const t1 = performance.now();
    fdatasyncSync(fd);
    return { write: t1 - t0, sync: performance.now() - t1 };
  } finally {
    closeSync(fd);
  }
}

console.log(`| ${args.mb} MB, one pwrite then fdatasync | write ms (MiB/s) | fdatasync ms |`);
console.log('|---|---:|---:|');
try {
  for (let r = 0; r < Number(args.rounds); r++) {
    const path = join(dir, `f${r}`);
    for (const [label, t] of [['new pages (fresh file)', writeAndSync(path)], ['pages already cached (same file again)', writeAndSync(path)]]) {
      console.log(`| ${label} | ${t.write.toFixed(1)} (${mibPerS(t.write)}) | ${t.sync.toFixed(1)} |`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
