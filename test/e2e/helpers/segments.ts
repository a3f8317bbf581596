// Finding stored bodies in a stopped server's segment files, to damage them on purpose (bitrot,
// truncation) the way a failing disk or file system would.

import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A body no other stored bytes contain, so that its place in a segment file can be found. */
export function markedBody(tag: string, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 64) b.write(`${tag}:${String(i).padStart(12, '0')};`.padEnd(64, '.'), i);
  return b;
}

/** The segment file holding `needle` (e.g. a marked body's first 64 bytes), and where in it. */
export function findInSegments(dataDir: string, needle: Buffer): { file: string; at: number } {
  const segments = join(dataDir, 'segments');
  for (const name of readdirSync(segments).sort()) {
    const file = join(segments, name);
    const at = readFileSync(file).indexOf(needle);
    if (at >= 0) return { file, at };
  }
  throw new Error('body not found in any segment');
}

/** Flips one bit of the byte `offsetInBody` past where `needle` (a body's first bytes) lies in a segment of `dataDir`. */
export function flipByteOf(dataDir: string, needle: Buffer, offsetInBody: number): void {
  const { file, at } = findInSegments(dataDir, needle);
  const fd = openSync(file, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, at + offsetInBody);
  b[0] = b[0]! ^ 0x01;
  writeSync(fd, b, 0, 1, at + offsetInBody);
  closeSync(fd);
}

/** Bytes of the segment files of a data directory; a file compaction deletes meanwhile counts 0. */
export function segmentBytes(dataDir: string): number {
  const dir = join(dataDir, 'segments');
  return readdirSync(dir).reduce((sum, f) => sum + (statSync(join(dir, f), { throwIfNoEntry: false })?.size ?? 0), 0);
}

/**
 * Bytes of every file under `dir` (like `du -s --apparent-size`, or the blocks allocated where
 * those are more), skipping the top-level entries named in `skip`; a file deleted meanwhile counts 0.
 */
export function dirBytes(dir: string, skip: readonly string[] = []): number {
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      sum += dirBytes(path);
      continue;
    }
    const st = statSync(path, { throwIfNoEntry: false });
    if (st) sum += Math.max(st.size, st.blocks * 512);
  }
  return sum;
}
