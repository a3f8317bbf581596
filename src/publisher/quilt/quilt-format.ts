// Quilt V1: many small files in one RS2 blob (walrus.md §10.1; layout from walrus-core
// encoding/quilt_encoding.rs, `QuiltEncoderV1` / `QuiltDecoderV1`). The blob is the whole
// n_primary × n_secondary symbol matrix; each file ("patch") takes whole consecutive columns, which
// it fills top to bottom, column after column. Columns 0.. hold the index:
//   u8 version (1) ‖ u32 LE index length ‖ BCS QuiltIndexV1 { patches: [ { end u16, identifier, tags } ] }
// and each patch starts with a 6-byte header u8 version (1) ‖ u32 LE length ‖ u8 mask, then
// u16 LE size ‖ BCS identifier, then (mask bit 0) u16 LE size ‖ BCS tags (BTreeMap<String,
// String>), then the file's bytes; `length` counts everything after the header.

import { encodingParams, MAX_SYMBOL_SIZE } from '../nodes/encoding-params.js';
import { BcsReader, bcsString, bcsStringMap, bcsUleb } from './bcs-lite.js';

export const QUILT_VERSION_V1 = 1;
const INDEX_PREFIX_SIZE = 1 + 4;
const PATCH_HEADER_SIZE = 1 + 4 + 1;
const SIZE_FIELD = 2;
const MAX_INDEX_COLUMNS = 10;
const HAS_TAGS = 1 << 0;
/** RS2 symbols are whole 16-bit field elements. */
const SYMBOL_ALIGNMENT = 2;

export interface QuiltFile {
  identifier: string;
  contents: Buffer;
  tags?: Record<string, string>;
}

export interface QuiltPatch {
  identifier: string;
  tags: Record<string, string>;
  /** first column (secondary sliver index) of the patch */
  start: number;
  /** one past its last column */
  end: number;
}

export class QuiltFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuiltFormatError';
  }
}

interface Matrix {
  rows: number;
  columns: number;
  symbolSize: number;
}

/** The quilt blob of `files` for n shards, and where each file lies; files are ordered by identifier. */
export function encodeQuilt(files: readonly QuiltFile[], nShards: number): { blob: Buffer; patches: QuiltPatch[] } {
  if (files.length === 0) throw new QuiltFormatError('a quilt needs at least one file');
  // quilt_encoding.rs sorts by identifier (Rust String order: UTF-8 bytes).
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.identifier), Buffer.from(b.identifier)));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.identifier === sorted[i - 1]!.identifier) throw new QuiltFormatError(`duplicate identifier '${sorted[i]!.identifier}'`);
  }
  const prefixes = sorted.map(patchPrefix);
  const patches: QuiltPatch[] = sorted.map((f) => ({ identifier: f.identifier, tags: f.tags ?? {}, start: 0, end: 0 }));
  // The index's size does not depend on the column numbers (u16 each), so it is known before the layout.
  const indexSize = INDEX_PREFIX_SIZE + indexBody(patches).length;
  const { nPrimary: rows, nSecondary: columns } = encodingParams(nShards);
  const sizes = [indexSize, ...sorted.map((f, i) => prefixes[i]!.length + f.contents.length)];
  const symbolSize = quiltSymbolSize(sizes, columns, rows);
  const matrix: Matrix = { rows, columns, symbolSize };
  const columnSize = symbolSize * rows;
  const blob = Buffer.alloc(symbolSize * columns * rows);
  let column = Math.ceil(indexSize / columnSize);
  sorted.forEach((file, i) => {
    const patch = patches[i]!;
    patch.start = column;
    column += writeColumns(blob, matrix, column, [prefixes[i]!, file.contents]);
    patch.end = column;
  });
  const body = indexBody(patches);
  const prefix = Buffer.alloc(INDEX_PREFIX_SIZE);
  prefix.writeUInt8(QUILT_VERSION_V1, 0);
  prefix.writeUInt32LE(body.length, 1);
  writeColumns(blob, matrix, 0, [prefix, body]);
  return { blob, patches };
}

/** The patches listed in a quilt blob's index. */
export function readQuiltIndex(blob: Buffer, nShards: number): QuiltPatch[] {
  const matrix = quiltMatrix(blob, nShards);
  const columnSize = matrix.symbolSize * matrix.rows;
  const head = readColumns(blob, matrix, 0, 1);
  if (head[0] !== QUILT_VERSION_V1) throw new QuiltFormatError(`quilt version ${head[0]}, only 1 is known`);
  if (head.length < INDEX_PREFIX_SIZE) throw new QuiltFormatError('quilt index prefix does not fit its first column');
  const indexSize = INDEX_PREFIX_SIZE + head.readUInt32LE(1);
  const indexColumns = Math.ceil(indexSize / columnSize);
  if (indexColumns > MAX_INDEX_COLUMNS || indexColumns > matrix.columns) throw new QuiltFormatError('quilt index larger than its columns');
  const reader = new BcsReader(readColumns(blob, matrix, 0, indexColumns).subarray(INDEX_PREFIX_SIZE, indexSize));
  const count = reader.uleb();
  const patches: QuiltPatch[] = [];
  let start = indexColumns;
  for (let i = 0; i < count; i++) {
    const end = reader.u16();
    const identifier = reader.string();
    const tags = reader.stringMap();
    if (end <= start || end > matrix.columns) throw new QuiltFormatError(`patch '${identifier}' ends at column ${end}`);
    patches.push({ identifier, tags, start, end });
    start = end;
  }
  return patches;
}

/** The file of one patch: its identifier, tags and bytes, from the patch's own header. */
export function readQuiltPatch(blob: Buffer, nShards: number, start: number, end: number): QuiltFile & { tags: Record<string, string> } {
  const matrix = quiltMatrix(blob, nShards);
  if (!(start < end && end <= matrix.columns)) throw new QuiltFormatError(`columns ${start}..${end} are not in the quilt`);
  const bytes = readColumns(blob, matrix, start, end - start);
  if (bytes.length < PATCH_HEADER_SIZE || bytes[0] !== QUILT_VERSION_V1) throw new QuiltFormatError('no quilt patch starts at this column');
  const length = bytes.readUInt32LE(1);
  const mask = bytes[5]!;
  if (PATCH_HEADER_SIZE + length > bytes.length) throw new QuiltFormatError('quilt patch longer than its columns');
  const section = (at: number): { body: Buffer; next: number } => {
    const size = bytes.readUInt16LE(at);
    return { body: bytes.subarray(at + SIZE_FIELD, at + SIZE_FIELD + size), next: at + SIZE_FIELD + size };
  };
  const id = section(PATCH_HEADER_SIZE);
  const identifier = new BcsReader(id.body).string();
  let next = id.next;
  let tags: Record<string, string> = {};
  if (mask & HAS_TAGS) {
    const t = section(next);
    tags = new BcsReader(t.body).stringMap();
    next = t.next;
  }
  const dataEnd = PATCH_HEADER_SIZE + length;
  if (next > dataEnd) throw new QuiltFormatError('quilt patch header longer than the patch');
  return { identifier, tags, contents: bytes.subarray(next, dataEnd) };
}

/** compute_symbol_size (quilt_encoding.rs utils): the least symbol size, rounded up to the RS2 alignment, at which every item fits in whole columns. */
export function quiltSymbolSize(sizes: readonly number[], columns: number, rows: number): number {
  if (sizes.length > columns) throw new QuiltFormatError(`${sizes.length - 1} files, a quilt holds at most ${columns - 1} at this shard count`);
  const fits = (symbol: number) => sizes.reduce((n, size) => n + Math.ceil(size / (symbol * rows)), 0) <= columns;
  const total = sizes.reduce((a, b) => a + b, 0);
  let lo = Math.max(Math.ceil(total / (columns * rows)), Math.ceil(sizes[0]! / (rows * MAX_INDEX_COLUMNS)), Math.ceil(INDEX_PREFIX_SIZE / rows));
  let hi = Math.ceil(Math.max(...sizes) / (Math.floor(columns / sizes.length) * rows));
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  const symbol = Math.ceil(lo / SYMBOL_ALIGNMENT) * SYMBOL_ALIGNMENT;
  if (symbol > MAX_SYMBOL_SIZE) throw new QuiltFormatError(`the quilt would need symbols of ${symbol} bytes, at most ${MAX_SYMBOL_SIZE} exist; store fewer or smaller files`);
  return symbol;
}

function patchPrefix(file: QuiltFile): Buffer {
  const identifier = bcsString(file.identifier);
  if (identifier.length > 0xffff) throw new QuiltFormatError(`identifier '${file.identifier.slice(0, 40)}…' is too long`);
  const hasTags = file.tags !== undefined && Object.keys(file.tags).length > 0;
  const tags = hasTags ? bcsStringMap(file.tags!) : undefined;
  if (tags && tags.length > 0xffff) throw new QuiltFormatError(`the tags of '${file.identifier}' are too long`);
  const extensions = SIZE_FIELD + identifier.length + (tags ? SIZE_FIELD + tags.length : 0);
  const length = extensions + file.contents.length;
  if (length > 0xffff_ffff) throw new QuiltFormatError(`'${file.identifier}' is too large for a quilt patch`);
  const out = Buffer.alloc(PATCH_HEADER_SIZE + extensions);
  out.writeUInt8(QUILT_VERSION_V1, 0);
  out.writeUInt32LE(length, 1);
  out.writeUInt8(hasTags ? HAS_TAGS : 0, 5);
  let at = out.writeUInt16LE(identifier.length, PATCH_HEADER_SIZE);
  at += identifier.copy(out, at);
  if (tags) {
    at = out.writeUInt16LE(tags.length, at);
    tags.copy(out, at);
  }
  return out;
}

function indexBody(patches: readonly QuiltPatch[]): Buffer {
  const parts: Buffer[] = [bcsUleb(patches.length)];
  for (const p of patches) {
    const end = Buffer.alloc(2);
    end.writeUInt16LE(p.end);
    parts.push(end, bcsString(p.identifier), bcsStringMap(p.tags));
  }
  return Buffer.concat(parts);
}

/** The matrix of a quilt blob: it is the whole symbol matrix, so its length fixes the symbol size. */
function quiltMatrix(blob: Buffer, nShards: number): Matrix {
  const { nPrimary: rows, nSecondary: columns } = encodingParams(nShards);
  const symbolSize = blob.length / (rows * columns);
  if (!Number.isInteger(symbolSize) || symbolSize === 0) throw new QuiltFormatError(`a blob of ${blob.length} bytes is not a quilt at ${nShards} shards`);
  return { rows, columns, symbolSize };
}

/** Writes `chunks` one after the other down the columns from `first`; returns the columns used. */
function writeColumns(blob: Buffer, m: Matrix, first: number, chunks: readonly Buffer[]): number {
  let written = 0;
  for (const chunk of chunks) {
    let at = 0;
    while (at < chunk.length) {
      const symbol = Math.floor(written / m.symbolSize);
      const within = written % m.symbolSize;
      const column = first + Math.floor(symbol / m.rows);
      const row = symbol % m.rows;
      const n = Math.min(m.symbolSize - within, chunk.length - at);
      chunk.copy(blob, row * m.symbolSize * m.columns + column * m.symbolSize + within, at, at + n);
      at += n;
      written += n;
    }
  }
  return Math.ceil(written / (m.symbolSize * m.rows));
}

/** The bytes of `count` columns from `first`, each read top to bottom. */
function readColumns(blob: Buffer, m: Matrix, first: number, count: number): Buffer {
  const out = Buffer.allocUnsafe(count * m.rows * m.symbolSize);
  let at = 0;
  for (let column = first; column < first + count; column++) {
    for (let row = 0; row < m.rows; row++) {
      const from = row * m.symbolSize * m.columns + column * m.symbolSize;
      at += blob.copy(out, at, from, from + m.symbolSize);
    }
  }
  return out;
}
