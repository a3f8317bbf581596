// The fetch Tusk's Sui gRPC client sends with. A kept-alive connection the full node (or a proxy in
// front of it) closes just as the next request goes out on it fails that request with "fetch
// failed" (undici UND_ERR_SOCKET "other side closed", or ECONNRESET) although the node never
// answered it: seen with 16 stores at once on a loaded machine (SimulateTransaction failing while
// building a certify transaction). Such a request is sent again, once, on a new connection. Every
// call the publisher makes may be repeated: reads and simulations change nothing, and one signed
// transaction executes at most once on Sui (the same bytes have the same digest; wallet-pool.ts
// resends them on purpose for the same reason).

const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);

/** Whether `e` is fetch's failure for a connection closed under the request. */
export function isConnectionReset(e: unknown): boolean {
  const err = e as { name?: string; message?: string; cause?: { code?: string } };
  return err?.name === 'TypeError' && err.message === 'fetch failed' && RESET_CODES.has(err.cause?.code ?? '');
}

export function resendOnReset(inner: typeof fetch = (input, init) => globalThis.fetch(input, init)): typeof fetch {
  return async (input, init) => {
    try {
      return await inner(input, init);
    } catch (e) {
      if (!isConnectionReset(e) || init?.signal?.aborted) throw e;
      return inner(input, init);
    }
  };
}
