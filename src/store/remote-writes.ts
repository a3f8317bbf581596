// Body writes from a thread other than the writer's (--threads N). The front-end thread writes each
// body record itself, with the writer thread's own SegmentBodyWriter, into an extent the writer
// thread reserved for it, and then asks the writer thread to commit that extent. Allocation, index
// commits, write conditions and version order stay in the writer thread; no body byte crosses
// threads. Small records come out of a lease (LEASE_BYTES of the active segment granted at once, the
// next one asked for before this one runs out), so a small PUT waits for no grant; a larger body
// asks for an extent of its own before its first byte is written. The writer thread holds the
// segment of every grant (compaction does not delete it) until the front end is done with it.

import type { MessagePort } from 'node:worker_threads';
import { BatchedPort, onBatches } from '../base/batched-port.js';
import { DEFAULT_SMALL_BODY_MAX, SegmentBodyWriter, type CommitTarget, type WriterContext } from './body-writer.js';
import type { Crc32c } from './crc32c.js';
import { storageErrno } from '../base/storage-failures.js';
import { StoreError, type StoreErrorKind, type StoreSubject } from './errors.js';
import type { Reservation } from './segment-allocator.js';
import type { SegmentReadTable } from './segment-files.js';
import type { BodyWriter, Extent, ObjectVersion, Part } from './types.js';

/** Bytes of the active segment granted at once for small records. */
const LEASE_BYTES = 1 << 20;
/** Records this long or longer get an extent of their own. */
const OWN_EXTENT_MIN = LEASE_BYTES / 4;
/** A lease unused this long goes back, so that an idle thread holds no segment. */
const LEASE_IDLE_MS = 1000;

type WireError =
  | { store: true; kind: StoreErrorKind; message: string; subject?: StoreSubject; detail: Record<string, string | number> }
  | { store: false; message: string; code?: string };

/** front end → writer */
type WriteRequest =
  | { t: 'reserve'; id: number; length: number }
  | { t: 'commit'; id: number; target: CommitTarget; extent: Extent; end: number }
  | { t: 'release'; grant: number };

/** writer → front end; a commit's answer is only what the front end does not know already (its version id) */
type WriteReply =
  | { t: 'granted'; id: number; grant: number; where: Reservation }
  | { t: 'committed'; id: number; versionId?: string }
  | { t: 'failed'; id: number; error: WireError };

/** What the writer thread's store does for another thread's body writers (segment-store.ts). */
export interface ExtentHost {
  reserveHeld(length: number): Promise<{ reservation: Reservation; release: () => void }>;
  commitExtent(target: CommitTarget, extent: Extent, recordEnd: number): Promise<ObjectVersion | Part>;
}

/** A failure as the front end can rebuild it: the engine's own, or another one's message and errno name. */
async function toWire(e: unknown): Promise<WireError> {
  if (e instanceof StoreError) return { store: true, kind: e.kind, message: e.message, subject: e.subject, detail: e.detail };
  // an LMDB commit failure keeps its errno on a promise, which does not cross threads
  const code = await storageErrno(e);
  return { store: false, message: String((e as Error | undefined)?.message ?? e), ...(code ? { code } : {}) };
}

/**
 * The engine's result of committing `extent` as `target` (SegmentStore.commitVersion / commitPart:
 * one extent, the body's size, the input's fields), rebuilt in the front end from the version id
 * the writer gave it: sending the whole result back would clone the attrs a second time.
 */
function committedResult(target: CommitTarget, extent: Extent, versionId: string | undefined): ObjectVersion | Part {
  const { etag, lastModified, attrs } = target.input;
  if (target.kind === 'part') return { partNumber: target.partNumber, size: extent.length, etag, lastModified, extents: [extent], attrs };
  if (versionId === undefined) throw new Error('a committed version came back without its version id');
  return { key: target.key, versionId, deleteMarker: false, size: extent.length, etag, lastModified, extents: [extent], attrs };
}

function fromWire(w: WireError): Error {
  if (w.store) return new StoreError(w.kind, w.message, w.subject, w.detail);
  return Object.assign(new Error(w.message), w.code ? { code: w.code } : {});
}

/** The writer thread's side of one front end: grants extents and commits them. `close` lets go of every grant (the thread ended). */
export function serveRemoteWrites(port: MessagePort, host: ExtentHost): { close(): void } {
  const holds = new Map<number, () => void>();
  let nextGrant = 1;
  let closed = false;
  const replies = new BatchedPort<WriteReply>(port);
  const reply = (m: WriteReply): void => replies.post(m);
  const fail = async (id: number, e: unknown): Promise<void> => reply({ t: 'failed', id, error: await toWire(e) });
  onBatches(port, (m: WriteRequest) => {
    switch (m.t) {
      case 'reserve':
        host.reserveHeld(m.length).then(({ reservation, release }) => {
          if (closed) return release();
          const grant = nextGrant++;
          holds.set(grant, release);
          reply({ t: 'granted', id: m.id, grant, where: reservation });
        }, (e: unknown) => fail(m.id, e));
        break;
      case 'commit':
        host.commitExtent(m.target, m.extent, m.end).then(
          (result) => reply({ t: 'committed', id: m.id, versionId: m.target.kind === 'version' ? (result as ObjectVersion).versionId : undefined }),
          (e: unknown) => fail(m.id, e),
        );
        break;
      case 'release':
        holds.get(m.grant)?.();
        holds.delete(m.grant);
        break;
    }
  });
  return {
    close() {
      closed = true;
      for (const release of holds.values()) release();
      holds.clear();
    },
  };
}

/** An extent the writer thread granted: the records carved from it, and whether more may be. */
interface Lease {
  grant: number;
  segment: number;
  tail: number;
  end: number;
  /** records carved from it whose writers are not done yet */
  outstanding: number;
  /** no more records are carved from it; it goes back once `outstanding` is 0 */
  retired: boolean;
  installed: boolean;
  released: boolean;
}

type Carved = Reservation & { lease: Lease };

/** A front end's body writes: SegmentBodyWriters over the thread's own segment fds, extents granted and commits made by the writer thread. */
export class RemoteWrites {
  private nextId = 1;
  private readonly pending = new Map<number, (m: WriteReply) => void>();
  private readonly requests: BatchedPort<WriteRequest>;
  private readonly context: WriterContext;
  /** the lease small records come from */
  private lease: Lease | undefined;
  /** the next lease, asked for before the current one runs out */
  private spare: Promise<Lease> | undefined;
  private lastUse = 0;
  private readonly idleTimer: NodeJS.Timeout;

  /** `files`: the thread's segment fds, opened for writing. */
  constructor(port: MessagePort, files: SegmentReadTable, crc32c: Crc32c) {
    this.requests = new BatchedPort(port);
    onBatches(port, (m: WriteReply) => {
      const settle = this.pending.get(m.id);
      this.pending.delete(m.id);
      settle?.(m);
    });
    this.context = {
      files,
      crc32c,
      smallBodyMax: DEFAULT_SMALL_BODY_MAX,
      allocator: { reserve: (length) => this.reserve(length), done: (where) => this.done(where as Carved) },
      checkSpace: () => undefined, // the writer thread checks each grant against the disk reserve
      commitExtent: (target, extent, end) => this.commit(target, extent, end),
    };
    this.idleTimer = setInterval(() => {
      if (Date.now() - this.lastUse >= LEASE_IDLE_MS) this.retireLeases();
    }, LEASE_IDLE_MS);
    this.idleTimer.unref();
  }

  beginWrite<A, P>(size: number): BodyWriter<A, P> {
    return new SegmentBodyWriter(size, this.context) as unknown as BodyWriter<A, P>;
  }

  /** Gives back the leases (the thread is closing; its writers are done). */
  close(): void {
    clearInterval(this.idleTimer);
    this.retireLeases();
  }

  private request(m: { t: 'reserve'; length: number } | { t: 'commit'; target: CommitTarget; extent: Extent; end: number }): Promise<WriteReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.requests.post({ ...m, id });
    });
  }

  private async commit(target: CommitTarget, extent: Extent, end: number): Promise<ObjectVersion | Part> {
    const m = await this.request({ t: 'commit', target, extent, end });
    if (m.t === 'failed') throw fromWire(m.error);
    if (m.t !== 'committed') throw new Error(`unexpected reply ${m.t} to a commit`);
    return committedResult(target, extent, m.versionId);
  }

  private async grant(length: number): Promise<Lease> {
    const m = await this.request({ t: 'reserve', length });
    if (m.t === 'failed') throw fromWire(m.error);
    if (m.t !== 'granted') throw new Error(`unexpected reply ${m.t} to a reservation`);
    const { segment, offset, length: granted } = m.where;
    return { grant: m.grant, segment, tail: offset, end: offset + granted, outstanding: 0, retired: false, installed: false, released: false };
  }

  private reserve(length: number): Reservation | Promise<Reservation> {
    this.lastUse = Date.now();
    if (length >= OWN_EXTENT_MIN) {
      return this.grant(length).then((own) => {
        own.retired = true;
        return this.carve(own, length);
      });
    }
    const lease = this.lease;
    if (lease && lease.tail + length <= lease.end) {
      const carved = this.carve(lease, length);
      if (!this.spare && lease.end - lease.tail < LEASE_BYTES / 2) this.askSpare();
      return carved;
    }
    return this.nextLease().then(() => this.reserve(length));
  }

  private carve(lease: Lease, length: number): Carved {
    const carved = { segment: lease.segment, offset: lease.tail, length, lease };
    lease.tail += length;
    lease.outstanding++;
    return carved;
  }

  private askSpare(): Promise<Lease> {
    const spare = this.grant(LEASE_BYTES);
    spare.catch(() => undefined); // whoever needs it sees the failure
    return (this.spare = spare);
  }

  /** Makes the spare lease (asked for now if it was not) the current one. */
  private async nextLease(): Promise<void> {
    const spare = this.spare ?? this.askSpare();
    try {
      const next = await spare;
      // those that waited for the same spare: the first one installs it
      if (next.installed || next.retired) return;
      next.installed = true;
      if (this.lease) this.retire(this.lease);
      this.lease = next;
    } finally {
      if (this.spare === spare) this.spare = undefined;
    }
  }

  private done(where: Carved): void {
    where.lease.outstanding--;
    this.releaseIfDone(where.lease);
  }

  private retire(lease: Lease): void {
    lease.retired = true;
    if (this.lease === lease) this.lease = undefined;
    this.releaseIfDone(lease);
  }

  private retireLeases(): void {
    if (this.lease) this.retire(this.lease);
    const spare = this.spare;
    this.spare = undefined;
    void spare?.then((l) => this.retire(l), () => undefined);
  }

  private releaseIfDone(lease: Lease): void {
    if (!lease.retired || lease.outstanding > 0 || lease.released) return;
    lease.released = true;
    this.requests.post({ t: 'release', grant: lease.grant });
  }
}
