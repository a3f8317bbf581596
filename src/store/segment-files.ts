// The table of open segment files: one read-write fd per segment, its group-commit syncer, and a
// reader count so that compaction can delete a file only when nobody streams from it.

import fs from 'node:fs';
import path from 'node:path';
import type { Crc32c } from './crc32c.js';
import { closeFd, fdatasync, pwriteAll } from './fd-io.js';
import { encodeSegmentHeader } from './format.js';
import { SyncGroup, type SyncCounter } from './sync-group.js';

/** What a reader needs of a segment: its fd. */
export interface ReadableSegment {
  readonly segment: number;
  /** Resolves to the fd once the file exists with its header written. */
  readonly ready: Promise<number>;
  fd: number | undefined;
}

/** The table body readers read through: a segment is held (not deleted) between acquire and release. */
export interface SegmentReadTable {
  get(segment: number): ReadableSegment;
  acquire(segment: number): ReadableSegment;
  release(file: ReadableSegment): void;
}

export interface SegmentFile extends ReadableSegment {
  readonly syncer: SyncGroup;
  readers: number;
}

export function segmentFileName(segment: number): string {
  return `${String(segment).padStart(8, '0')}.seg`;
}

export function parseSegmentFileName(name: string): number | undefined {
  const m = /^(\d{8,})\.seg$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

export class SegmentFiles implements SegmentReadTable {
  private readonly files = new Map<number, SegmentFile>();

  constructor(
    readonly dir: string,
    private readonly crc32c: Crc32c,
    private readonly strict: boolean,
    private readonly counter: SyncCounter,
    /** told after a segment file was deleted (read replicas in other threads close their fds) */
    private readonly onRemoved?: (segment: number) => void,
  ) {}

  path(segment: number): string {
    return path.join(this.dir, segmentFileName(segment));
  }

  /** Registers an existing file (start-up, after recovery). */
  adopt(segment: number, fd: number): SegmentFile {
    return this.register(segment, Promise.resolve(fd), fd);
  }

  /** Creates a new segment file with its header; durable (file and directory entry) in strict mode. */
  create(segment: number): SegmentFile {
    const ready = (async () => {
      const fd = await new Promise<number>((resolve, reject) =>
        fs.open(this.path(segment), 'wx+', (err, fd) => (err ? reject(err) : resolve(fd))),
      );
      await pwriteAll(fd, encodeSegmentHeader(segment, Date.now(), this.crc32c), 0);
      if (this.strict) {
        await fdatasync(fd);
        await syncDirectory(this.dir);
      }
      return fd;
    })();
    ready.catch(() => undefined); // surfaced to whoever awaits `ready`
    const file = this.register(segment, ready, undefined);
    void ready.then((fd) => (file.fd = fd), () => undefined);
    return file;
  }

  get(segment: number): SegmentFile {
    const file = this.files.get(segment);
    if (!file) throw new Error(`segment ${segment} is not open`);
    return file;
  }

  has(segment: number): boolean {
    return this.files.has(segment);
  }

  /** Makes every write to `segment` that completed before this call durable (grouped with concurrent callers). */
  sync(segment: number): Promise<void> {
    return this.strict ? this.get(segment).syncer.sync() : Promise.resolve();
  }

  acquire(segment: number): SegmentFile {
    const file = this.get(segment);
    file.readers++;
    return file;
  }

  release(file: ReadableSegment): void {
    (file as SegmentFile).readers--;
  }

  /** Segments open now, in number order. */
  numbers(): number[] {
    return [...this.files.keys()].sort((a, b) => a - b);
  }

  /**
   * Closes and deletes a segment nobody uses any more (compaction, after the index stopped
   * pointing at it). False, and nothing done, while a reader or writer still holds it.
   */
  async remove(segment: number): Promise<boolean> {
    const file = this.files.get(segment);
    if (!file) return true;
    if (file.readers > 0) return false;
    this.files.delete(segment);
    const fd = await file.ready.catch(() => undefined);
    await file.syncer.idle();
    if (fd !== undefined) await closeFd(fd);
    await fs.promises.unlink(this.path(segment)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    if (this.strict) await syncDirectory(this.dir);
    this.onRemoved?.(segment);
    return true;
  }

  async closeAll(): Promise<void> {
    const files = [...this.files.values()];
    this.files.clear();
    for (const file of files) {
      const fd = await file.ready.catch(() => undefined);
      if (fd === undefined) continue;
      await file.syncer.idle();
      await closeFd(fd);
    }
  }

  private register(segment: number, ready: Promise<number>, fd: number | undefined): SegmentFile {
    const file: SegmentFile = {
      segment,
      ready,
      fd,
      readers: 0,
      syncer: new SyncGroup(async () => fdatasync(await ready), this.counter),
    };
    this.files.set(segment, file);
    return file;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
