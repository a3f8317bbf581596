// Body writes from a thread other than the writer's (--threads N): the front-end thread streams
// the body to the writer thread over a MessagePort and the writer's own BodyWriter puts it in the
// segment and commits it, so that allocation, index commits, conditions and version order stay in
// one thread. The front end keeps everything before that (parsing, authentication, digests).
// Bodies up to SMALL_BODY_MAX go over in the commit message itself; larger ones chunk by chunk,
// at most WINDOW chunks ahead of the writer's acknowledgements.

import type { MessagePort } from 'node:worker_threads';
import { CommitsByTarget, DEFAULT_SMALL_BODY_MAX, type CommitTarget } from './body-writer.js';
import { asBuffer, exact } from '../cross-thread-bytes.js';
import { storageErrno } from '../storage-failures.js';
import { StoreError, type StoreErrorKind, type StoreSubject } from './errors.js';
import type { BodyWriter, ObjectVersion, Part, Store } from './types.js';

const SMALL_BODY_MAX = DEFAULT_SMALL_BODY_MAX;
const WINDOW = 8;

type WireError =
  | { store: true; kind: StoreErrorKind; message: string; subject?: StoreSubject; detail: Record<string, string | number> }
  | { store: false; message: string; code?: string };

/** front end → writer */
type WriteRequest =
  | { t: 'open'; id: number; size: number }
  | { t: 'chunk'; id: number; data: Uint8Array }
  /** `size` and `data`: the whole body of a writer not opened before (a small one) */
  | { t: 'commit'; id: number; target: CommitTarget; size?: number; data?: Uint8Array }
  | { t: 'abort'; id: number };

/** writer → front end */
type WriteReply =
  | { t: 'ack'; id: number; error?: WireError }
  | { t: 'committed'; id: number; result: ObjectVersion | Part }
  | { t: 'failed'; id: number; error: WireError };

/** A failure as the front end can rebuild it: the engine's own, or another one's message and errno name. */
async function toWire(e: unknown): Promise<WireError> {
  if (e instanceof StoreError) return { store: true, kind: e.kind, message: e.message, subject: e.subject, detail: e.detail };
  // an LMDB commit failure keeps its errno on a promise, which does not cross threads
  const code = await storageErrno(e);
  return { store: false, message: String((e as Error | undefined)?.message ?? e), ...(code ? { code } : {}) };
}

function fromWire(w: WireError): Error {
  if (w.store) return new StoreError(w.kind, w.message, w.subject, w.detail);
  return Object.assign(new Error(w.message), w.code ? { code: w.code } : {});
}

/** A small body's chunks (`size` bytes in all) as one array, sent with its commit. */
function joined(chunks: Uint8Array[], size: number): Uint8Array {
  const whole = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    whole.set(c, at);
    at += c.length;
  }
  return whole;
}

/** The writer thread's side: runs each front end's writes through `store`. */
export function serveRemoteWrites(port: MessagePort, store: Pick<Store, 'beginWrite'>): void {
  const writers = new Map<number, { writer?: BodyWriter; failure?: unknown }>();
  const reply = (m: WriteReply): void => port.postMessage(m);
  const open = (id: number, size: number): { writer?: BodyWriter; failure?: unknown } => {
    let entry: { writer?: BodyWriter; failure?: unknown };
    try {
      entry = { writer: store.beginWrite(size) };
    } catch (e) {
      entry = { failure: e };
    }
    writers.set(id, entry);
    return entry;
  };
  const commit = async (id: number, m: Extract<WriteRequest, { t: 'commit' }>): Promise<void> => {
    const entry = m.size !== undefined ? open(id, m.size) : writers.get(id);
    try {
      if (!entry) throw new Error(`no body write ${id}`);
      if (entry.failure) throw entry.failure;
      const writer = entry.writer!;
      if (m.data) await writer.write(asBuffer(m.data));
      const t = m.target;
      const result = t.kind === 'version'
        ? await writer.commit(t.bucket, t.key, t.input, t.condition)
        : await writer.commitPart(t.bucket, t.key, t.uploadId, t.partNumber, t.input);
      reply({ t: 'committed', id, result });
    } catch (e) {
      await entry?.writer?.abort();
      reply({ t: 'failed', id, error: await toWire(e) });
    } finally {
      writers.delete(id);
    }
  };
  port.on('message', (m: WriteRequest) => {
    switch (m.t) {
      case 'open':
        open(m.id, m.size);
        break;
      case 'chunk': {
        const entry = writers.get(m.id);
        const refuse = async (e: unknown): Promise<void> => reply({ t: 'ack', id: m.id, error: await toWire(e) });
        if (!entry?.writer || entry.failure) {
          void refuse(entry?.failure ?? new Error(`no body write ${m.id}`));
          break;
        }
        entry.writer.write(asBuffer(m.data)).then(
          () => reply({ t: 'ack', id: m.id }),
          (e: unknown) => {
            entry.failure ??= e;
            return refuse(e);
          },
        );
        break;
      }
      case 'commit':
        void commit(m.id, m);
        break;
      case 'abort': {
        const entry = writers.get(m.id);
        writers.delete(m.id);
        void entry?.writer?.abort();
        break;
      }
    }
  });
}

/** A front end's end of the writes port: ids and the replies' routing. */
export class RemoteWrites {
  private nextId = 1;
  private readonly pending = new Map<number, (m: WriteReply) => void>();

  constructor(private readonly port: MessagePort) {
    port.on('message', (m: WriteReply) => this.pending.get(m.id)?.(m));
  }

  beginWrite<A, P>(size: number): BodyWriter<A, P> {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid body size ${size}`);
    return new RemoteBodyWriter(size, this.nextId++, this) as unknown as BodyWriter<A, P>;
  }

  /** @internal */
  send(m: WriteRequest): void {
    this.port.postMessage(m);
  }

  /** @internal every reply for `id` goes to `onReply` until `forget` */
  listen(id: number, onReply: (m: WriteReply) => void): void {
    this.pending.set(id, onReply);
  }

  /** @internal */
  forget(id: number): void {
    this.pending.delete(id);
  }
}

type State = 'open' | 'committing' | 'done';

class RemoteBodyWriter extends CommitsByTarget implements BodyWriter {
  written = 0;
  private state: State = 'open';
  /** a small body, sent with the commit */
  private chunks: Buffer[] | undefined;
  private unacked = 0;
  /** writes waiting for the writer to catch up (the caller may have several in flight) */
  private waiting: (() => void)[] = [];
  private failure: Error | undefined;
  private settle: ((m: WriteReply) => void) | undefined;

  constructor(
    readonly size: number,
    private readonly id: number,
    private readonly link: RemoteWrites,
  ) {
    super();
    link.listen(id, (m) => this.onReply(m));
    if (size <= SMALL_BODY_MAX) {
      this.chunks = [];
      return;
    }
    link.send({ t: 'open', id, size });
  }

  private onReply(m: WriteReply): void {
    if (m.t === 'ack') {
      this.unacked--;
      if (m.error) this.failure ??= fromWire(m.error);
      const waiting = this.waiting;
      this.waiting = [];
      for (const wake of waiting) wake();
      return;
    }
    this.settle?.(m);
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.state !== 'open') throw new Error(`write after ${this.state}`);
    if (this.failure) throw this.failure;
    if (this.written + chunk.length > this.size) throw new RangeError('the body is longer than its declared size');
    this.written += chunk.length;
    if (this.chunks) {
      if (chunk.length) this.chunks.push(chunk);
      return;
    }
    this.unacked++;
    this.link.send({ t: 'chunk', id: this.id, data: exact(chunk) });
    while (this.unacked >= WINDOW && !this.failure) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure) throw this.failure;
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'done';
    this.link.forget(this.id);
    // writes still waiting for acknowledgements that will not come now
    this.failure ??= new Error('the body write was aborted');
    for (const wake of this.waiting.splice(0)) wake();
    if (!this.chunks) this.link.send({ t: 'abort', id: this.id });
    this.chunks = undefined;
  }

  protected async finish(target: CommitTarget): Promise<ObjectVersion | Part> {
    if (this.state !== 'open') throw new Error(`commit after ${this.state}`);
    this.state = 'committing';
    const small = this.chunks;
    let sent = false;
    try {
      if (this.written !== this.size) throw new RangeError(`the body has ${this.written} of its ${this.size} bytes`);
      if (this.failure) throw this.failure;
      const reply = new Promise<WriteReply>((resolve) => (this.settle = resolve));
      if (small) {
        this.link.send({ t: 'commit', id: this.id, target, size: this.size, data: joined(small, this.size) });
      } else {
        this.link.send({ t: 'commit', id: this.id, target });
      }
      sent = true;
      const m = await reply;
      if (m.t === 'failed') throw fromWire(m.error);
      if (m.t !== 'committed') throw new Error(`unexpected reply ${m.t}`);
      return m.result;
    } catch (e) {
      // the writer aborts its side of a failed commit; one that failed before it still holds an extent
      if (!sent && !small) this.link.send({ t: 'abort', id: this.id });
      throw e;
    } finally {
      this.state = 'done';
      this.chunks = undefined;
      this.link.forget(this.id);
    }
  }
}
