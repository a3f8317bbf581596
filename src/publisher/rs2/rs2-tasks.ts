// The messages between the codec (src/publisher/rs2/codec.ts) and its RS2 worker threads
// (rs2-worker.ts). Errors cross the thread boundary as data: a thrown Error loses its `code`
// in the structured clone.
import type { ConsistencyCheck, NativeBlobIdInfo, NativeEncoding, Rs2ErrorCode, SliverAxis } from './rs2-native.js';

/** Task names: the worker module's named exports. */
export type Rs2TaskName = 'blobId' | 'encode' | 'decode' | 'verifyMetadata' | 'verifySliver';

export interface BlobTask {
  /** the blob, in a buffer transferred to the worker */
  data: Uint8Array;
  nShards: number;
}

export interface EncodeTask extends BlobTask {
  /** shared memory to encode into (rs2Encode's `out`): the result then carries no `bytes` */
  out?: SharedArrayBuffer;
}

export interface DecodeTask {
  nShards: number;
  unencodedLength: number;
  /** what the result is checked against (null: nothing) */
  metadataBcs: Uint8Array | null;
  check: ConsistencyCheck;
  /** the chosen primary slivers' BCS back to back, in one transferred buffer */
  packed: Uint8Array;
  /** [pair index, byte offset in `packed`, byte length] per sliver */
  slivers: Array<[number, number, number]>;
}

export interface VerifyMetadataTask {
  metadataBcs: Uint8Array;
  nShards?: number;
}

export interface VerifySliverTask {
  metadataBcs: Uint8Array;
  pairIndex: number;
  axis: SliverAxis;
  sliverBcs: Uint8Array;
}

export type TaskOutcome<T> = { ok: true; value: T } | { ok: false; code?: Rs2ErrorCode; message: string };

export interface Rs2Tasks {
  blobId(task: BlobTask): TaskOutcome<NativeBlobIdInfo>;
  encode(task: BlobTask): TaskOutcome<NativeEncoding>;
  decode(task: DecodeTask): TaskOutcome<ArrayBuffer>;
  /** null when valid, else the reason */
  verifyMetadata(task: VerifyMetadataTask): TaskOutcome<string | null>;
  verifySliver(task: VerifySliverTask): TaskOutcome<string | null>;
}
