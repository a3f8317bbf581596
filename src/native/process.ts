// Process-wide switches of the native module: a flock on the data directory, glibc's allocator
// thresholds and trimming, and C stdout sent to stderr.

import { binding } from './native.js';

/**
 * Takes an exclusive flock(2) on the open file `fd` without waiting: true once held, false when
 * another open file (another process) holds it; undefined where the module has no flock.
 */
export function lockFile(fd: number): boolean | undefined {
  return binding().lockFile?.(fd);
}

/**
 * Keeps allocations of up to 256 MiB in malloc's heap, and up to 1 GiB of free heap, instead of
 * mapping and unmapping each one (native/src/alloc_binding.rs): an RS2 encode's slivers, and the
 * request body chunks a large PUT copies out of uWS (~512 KiB each), then reuse freed memory rather
 * than fault in fresh pages. True once applied; undefined where the C library is not glibc.
 */
export function keepLargeAllocations(): boolean | undefined {
  const kept = binding().keepLargeAllocations?.(256 << 20, 1 << 30, 64 << 20);
  // what is kept is given back after a while, so that it cannot pile up (trimFreeMemoryEvery)
  if (kept) trimFreeMemoryEvery(MEMORY_TRIM_INTERVAL_MS);
  return kept;
}

/** How long freed memory is kept for reuse at most, roughly: a burst of large bodies or encodes reuses it; idle, it goes back. */
export const MEMORY_TRIM_INTERVAL_MS = 10_000;

/**
 * Hands malloc's free pages back to the kernel every `intervalMs` (malloc_trim(0), every arena),
 * from a native thread of its own: what keepLargeAllocations keeps is otherwise never returned, each
 * thread's arena staying as large as the most it ever held at once (a 10-minute mixed soak: RSS 161
 * → 900 MiB and rising, with a flat JS heap; a burst of 64 MiB bodies: 208 MiB kept, 105 after a
 * trim). keepLargeAllocations starts it. Once per process; undefined where the C library is not glibc.
 */
export function trimFreeMemoryEvery(intervalMs: number): boolean | undefined {
  return binding().trimFreeMemoryEvery?.(intervalMs);
}

/**
 * Sends what native code prints with printf or std::cout to stderr, leaving fd 1 (process.stdout,
 * the JSON log) alone (native/src/stdio_binding.rs). Call before loading a library that prints:
 * uWS does (src/http/uws.ts). True once applied; undefined where the C library is not glibc.
 */
export function cStdoutToStderr(): boolean | undefined {
  return binding().cStdoutToStderr?.();
}
