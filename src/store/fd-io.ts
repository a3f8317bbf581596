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
/** At most this many bytes of batched small writes per writev, so as not to hold the event loop long. */
const SYNC_BATCH_MAX = 256 * 1024;
/** Linux's IOV_MAX. */
const IOV_MAX = 1024;

interface QueuedWrite {
  fd: number;
  bufs: Uint8Array[];
  position: number;
  total: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

let queued: QueuedWrite[] = [];

/**
 * pwritevAll for writes of at most SYNC_WRITE_MAX bytes: they wait for the end of the event-loop
 * turn (setImmediate), and those that then continue one another in a file go out as one writev on
 * the event loop: the records of concurrent small PUTs (bodies, redo operations) are reserved back
 * to back, so one system call writes what each used to write with its own. Larger writes go to the
 * thread pool at once.
 */
export function pwritevAllBatched(fd: number, bufs: Uint8Array[], position: number): Promise<void> {
  const total = byteLength(bufs);
  if (total > SYNC_WRITE_MAX) return pwritevAll(fd, bufs, position);
  return new Promise((resolve, reject) => {
    if (queued.length === 0) setImmediate(flushQueued);
    queued.push({ fd, bufs, position, total, resolve, reject });
  });
}

function flushQueued(): void {
  const writes = queued.sort((a, b) => a.fd - b.fd || a.position - b.position);
  queued = [];
  for (let i = 0; i < writes.length; ) {
    const run = [writes[i]!];
    let bufs = writes[i]!.bufs.length;
    let total = writes[i]!.total;
    for (let next = writes[i + run.length]; next; next = writes[i + run.length]) {
      const last = run[run.length - 1]!;
      if (next.fd !== last.fd || next.position !== last.position + last.total) break;
      if (bufs + next.bufs.length > IOV_MAX || total + next.total > SYNC_BATCH_MAX) break;
      run.push(next);
      bufs += next.bufs.length;
      total += next.total;
    }
    i += run.length;
    void writeRun(run, total);
  }
}

async function writeRun(run: QueuedWrite[], total: number): Promise<void> {
  const { fd, position } = run[0]!;
  const bufs = run.length === 1 ? run[0]!.bufs : run.flatMap((w) => w.bufs);
  try {
    await finishWritev(fd, bufs, position, fs.writevSync(fd, bufs, position), total);
  } catch (e) {
    for (const w of run) w.reject(e);
    return;
  }
  for (const w of run) w.resolve();
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
