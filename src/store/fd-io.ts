// Positional file I/O on raw fds through the libuv pool (the callback API: no FileHandle per call),
// looping on short transfers.

import fs from 'node:fs';

function writeOnce(fd: number, buf: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.write(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}

export async function pwriteAll(fd: number, buf: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    done += await writeOnce(fd, buf, done, buf.length - done, position + done);
  }
}

function writevOnce(fd: number, bufs: Uint8Array[], position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.writev(fd, bufs, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}

/** Writes `bufs` back to back from `position` in as few system calls as the kernel allows. */
export async function pwritevAll(fd: number, bufs: Uint8Array[], position: number): Promise<void> {
  await finishWritev(fd, bufs, position, await writevOnce(fd, bufs, position), byteLength(bufs));
}

function byteLength(bufs: Uint8Array[]): number {
  let total = 0;
  for (const b of bufs) total += b.length;
  return total;
}

/**
 * Writes up to this many bytes with one system call on the event loop, as small reads are read
 * (body-reader.ts): a page-cache write of a few KiB costs less than the thread-pool round trip,
 * which on a busy machine is a context switch each way (4 KiB PUTs: ~20 µs of the event loop per
 * hand-off, measured).
 */
export const SYNC_WRITE_MAX = 64 * 1024;

/** pwritevAll, on the event loop when the whole is at most SYNC_WRITE_MAX bytes. */
export async function pwritevAllSmallSync(fd: number, bufs: Uint8Array[], position: number): Promise<void> {
  const total = byteLength(bufs);
  if (total > SYNC_WRITE_MAX) return pwritevAll(fd, bufs, position);
  await finishWritev(fd, bufs, position, fs.writevSync(fd, bufs, position), total);
}

/** After a writev of `bufs` (`total` bytes) at `position` wrote `done` bytes: writes the rest. */
async function finishWritev(fd: number, bufs: Uint8Array[], position: number, done: number, total: number): Promise<void> {
  while (done < total) {
    // Short writev (rare on regular files): finish buffer by buffer from where it stopped.
    let skip = done;
    for (const b of bufs) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      await pwriteAll(fd, b.subarray(skip), position + done);
      done += b.length - skip;
      skip = 0;
    }
  }
}

function readOnce(fd: number, buf: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}

/** Fills `buf[0, length)` from `position`; returns fewer bytes only at end of file. */
export async function preadFull(fd: number, buf: Uint8Array, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const n = await readOnce(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

export function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (err) => (err ? reject(err) : resolve())));
}

/** preadFull on the calling thread: start-up recovery, and small reads (SYNC_READ_MAX in body-reader.ts). */
export function preadFullSync(fd: number, buf: Uint8Array, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
