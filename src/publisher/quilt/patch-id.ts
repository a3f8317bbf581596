// Quilt patch ids (walrus.md §10.1; walrus-core lib.rs QuiltPatchId, metadata.rs
// QuiltPatchInternalIdV1): unpadded base64url of quilt blob id ‖ u8 version (1) ‖ u16 LE start
// column ‖ u16 LE end column.

import { QUILT_VERSION_V1 } from './quilt-format.js';

const ID_BYTES = 32 + 1 + 2 + 2;
const ID_TEXT = /^[A-Za-z0-9_-]{50}$/;

export interface QuiltPatchId {
  /** the quilt's blob id, base64url */
  quiltId: string;
  start: number;
  end: number;
}

export function encodeQuiltPatchId({ quiltId, start, end }: QuiltPatchId): string {
  const out = Buffer.alloc(ID_BYTES);
  Buffer.from(quiltId, 'base64url').copy(out, 0);
  out.writeUInt8(QUILT_VERSION_V1, 32);
  out.writeUInt16LE(start, 33);
  out.writeUInt16LE(end, 35);
  return out.toString('base64url');
}

/** undefined unless `text` is a canonical V1 patch id. */
export function parseQuiltPatchId(text: string): QuiltPatchId | undefined {
  if (!ID_TEXT.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== ID_BYTES || bytes.toString('base64url') !== text || bytes[32] !== QUILT_VERSION_V1) return undefined;
  return { quiltId: bytes.subarray(0, 32).toString('base64url'), start: bytes.readUInt16LE(33), end: bytes.readUInt16LE(35) };
}
