// Buffers a request has let go of (bodies, slivers) keep their memory outside V8's heap until a
// collection finds them dead. V8 13 (Node 24) starts one only once that memory has grown 64 MiB
// past the last, and an idle thread never does, so after a burst of large bodies the released ones
// stay resident for good (+68 MiB on four front-end threads, measured; V8 11 (Node 20) collects them
// sooner). So every thread that handles bodies looks every few seconds and, when more than
// `thresholdBytes` of buffer memory is held, runs a full collection (5–10 ms for Tusk's heap); the
// memory then goes back to malloc, whose free pages the trim thread returns (native/process.ts).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

const CHECK_INTERVAL_MS = 5_000;
const THRESHOLD_BYTES = 32 << 20;

/** Starts the check on this thread (once per thread); the timer never keeps the thread alive. */
export function collectReleasedBuffers(intervalMs = CHECK_INTERVAL_MS, thresholdBytes = THRESHOLD_BYTES): void {
  if (collect) return;
  // the documented way to reach V8's gc() without a command-line flag
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as () => void;
  setInterval(() => {
    if (process.memoryUsage().arrayBuffers > thresholdBytes) collect!();
  }, intervalMs).unref();
}
