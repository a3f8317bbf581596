// Piscina task module of the RS2 codec's worker threads: one named export per task (rs2-tasks.ts).
// The native calls are synchronous here — this thread exists to run them — and fan out to rayon's
// process-wide pool, so the pool's threads and rayon's share the cores instead of multiplying.
// Large results go back as transferred ArrayBuffers, never copied.
// Loaded from dist/publisher/rs2/rs2-worker.js (see workerFile() in src/publisher/rs2/codec.ts).
import { move, transferableSymbol, valueSymbol } from 'piscina';

import { isRs2Error, rs2BlobId, rs2Decode, rs2Encode, rs2MetadataProblem, rs2SliverProblem } from './rs2-native.js';
import type { BlobTask, DecodeTask, EncodeTask, TaskOutcome, VerifyMetadataTask, VerifySliverTask } from './rs2-tasks.js';

function outcome<T>(run: () => T): TaskOutcome<T> {
  try {
    return { ok: true, value: run() };
  } catch (e) {
    if (isRs2Error(e)) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

/** The outcome, with `buffer` (inside it) moved to the caller's thread rather than cloned. */
function moving<T>(result: TaskOutcome<T>, buffer: (value: T) => ArrayBuffer) {
  if (!result.ok) return result;
  return move({
    get [transferableSymbol]() {
      return [buffer(result.value)];
    },
    get [valueSymbol]() {
      return result;
    },
  });
}

export function blobId(task: BlobTask) {
  return outcome(() => rs2BlobId(task.data, task.nShards));
}

export function encode(task: EncodeTask) {
  if (task.out) {
    // The encoding is in the caller's shared memory already: only the sizes and ids go back.
    return outcome(() => {
      const { bytes: _inOut, ...info } = rs2Encode(task.data, task.nShards, task.out);
      return info;
    });
  }
  return moving(
    outcome(() => rs2Encode(task.data, task.nShards)),
    (e) => e.bytes as ArrayBuffer,
  );
}

export function decode(task: DecodeTask) {
  return moving(
    outcome(() => {
      const slivers = task.slivers.map(([index, at, length]): [number, Uint8Array] => [index, task.packed.subarray(at, at + length)]);
      return rs2Decode(task.nShards, task.unencodedLength, task.metadataBcs, slivers, task.check);
    }),
    (blob) => blob,
  );
}

export function verifyMetadata(task: VerifyMetadataTask) {
  return outcome(() => rs2MetadataProblem(task.metadataBcs, task.nShards));
}

export function verifySliver(task: VerifySliverTask) {
  return outcome(() => rs2SliverProblem(task.metadataBcs, task.pairIndex, task.axis, task.sliverBcs));
}
