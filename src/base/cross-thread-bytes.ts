// Bytes posted to another thread (MessagePort) by the request bridge (http/thread-bridge.ts), or held in shared memory.

/**
 * Bytes to post without cloning a larger buffer behind them (a pool slice, a cached block). Never
 * moved (transferred): a moved buffer is not counted as the receiving thread's memory, so its
 * garbage does not prompt that thread's collector, and a large upload grew the process by
 * hundreds of MiB; a clone is allocated and counted there.
 */
export function exact(chunk: Uint8Array): Uint8Array {
  return chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.byteLength ? chunk : new Uint8Array(chunk);
}

/** Received bytes as a Buffer (no copy). */
export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * `bytes`, or a copy in memory of its own when it is a view of shared memory (the RS2 codec's pool,
 * publisher/rs2/codec.ts): fetch does not send views of a SharedArrayBuffer.
 */
export function unshared(bytes: Buffer): Buffer {
  return bytes.buffer instanceof SharedArrayBuffer ? Buffer.from(bytes) : bytes;
}
