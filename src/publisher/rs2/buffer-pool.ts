// Memory for the codec's large encodes, kept for the next one. A 10 MiB blob at n = 1000 is ~50 MB
// of slivers plus the blob itself: allocated afresh for every store (or transferred to a worker and
// back, which V8 counts the same way), that memory was zero-filled in the worker, and each arrival
// on the event loop pushed V8 past its external-memory limit, so every store paid for rounds of
// garbage collection (~15–25 ms at 10 MiB, measured). Shared buffers are handed to a worker by
// reference: the event loop allocates and counts them once.

/** Free buffers kept at most (bytes), oldest dropped first. */
export const DEFAULT_POOL_BYTES = 256 << 20;

export class SharedBufferPool {
  private readonly free: SharedArrayBuffer[] = [];
  private kept = 0;

  constructor(private readonly maxBytes: number = DEFAULT_POOL_BYTES) {}

  /** Bytes held by free buffers. */
  get keptBytes(): number {
    return this.kept;
  }

  /** A buffer of at least `size` bytes and at most twice that: a free one if there is one, else a new one. */
  take(size: number): SharedArrayBuffer {
    const at = this.free.findIndex((b) => b.byteLength >= size && b.byteLength <= 2 * size);
    if (at < 0) return new SharedArrayBuffer(size);
    const [buffer] = this.free.splice(at, 1);
    this.kept -= buffer!.byteLength;
    return buffer!;
  }

  /** Keeps `buffer` for a later take; nothing may read or write it after this. */
  give(buffer: SharedArrayBuffer): void {
    const size = buffer.byteLength;
    if ( size > this.maxBytes || this.free.includes(buffer)) return;
    while (this.kept + size > this.maxBytes) this.kept -= this.free.shift()!.byteLength;
    this.free.push(buffer);
    this.kept += size;
  }
}
