// Combining CRCs of consecutive byte runs into the CRC of their concatenation without reading the
// bytes again: S3's FULL_OBJECT checksum of a multipart object (s3.md §3.23) from its parts' CRCs.
// The algorithm is zlib's crc32_combine (multiplication by x^(8·len) modulo the polynomial, in the
// reflected representation), generic over width; it holds for CRCs with init = xorout = all ones.

export interface CrcModel {
  width: 32 | 64;
  /** reflected polynomial */
  poly: bigint;
}

export const CRC32_MODEL: CrcModel = { width: 32, poly: 0xedb88320n };
export const CRC32C_MODEL: CrcModel = { width: 32, poly: 0x82f63b78n };
export const CRC64NVME_MODEL: CrcModel = { width: 64, poly: 0x9a6c9329ac4bc9b5n };

interface Tables {
  top: bigint;
  /** x^(2^k) mod P, k = 0 … 63 (lengths up to 2^60 bytes) */
  x2n: bigint[];
  /** x^(8·len) mod P by len: multipart parts mostly share one length, so this is computed once per size */
  byLength: Map<number, bigint>;
}

const tables = new Map<CrcModel, Tables>();

function multModP(model: CrcModel, top: bigint, a: bigint, b: bigint): bigint {
  let m = top;
  let p = 0n;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1n)) === 0n) break;
    }
    m >>= 1n;
    b = b & 1n ? (b >> 1n) ^ model.poly : b >> 1n;
  }
  return p;
}

function tablesOf(model: CrcModel): Tables {
  let t = tables.get(model);
  if (t) return t;
  const top = 1n << BigInt(model.width - 1);
  const x2n: bigint[] = [top >> 1n]; // x^1
  for (let k = 1; k < 64; k++) x2n.push(multModP(model, top, x2n[k - 1]!, x2n[k - 1]!));
  t = { top, x2n, byLength: new Map() };
  tables.set(model, t);
  return t;
}

function shiftOperator(model: CrcModel, t: Tables, bytes: number): bigint {
  let op = t.byLength.get(bytes);
  if (op !== undefined) return op;
  op = t.top; // x^0
  let n = BigInt(bytes);
  let k = 3; // 8 bits per byte
  while (n > 0n) {
    if (n & 1n) op = multModP(model, t.top, t.x2n[k]!, op);
    n >>= 1n;
    k++;
  }
  if (t.byLength.size < 1024) t.byLength.set(bytes, op);
  return op;
}

/** CRC of A‖B from crc(A), crc(B) and B's length. */
export function crcCombine(model: CrcModel, crcA: bigint, crcB: bigint, lengthB: number): bigint {
  if (lengthB === 0) return crcA;
  const t = tablesOf(model);
  return multModP(model, t.top, shiftOperator(model, t, lengthB), crcA) ^ crcB;
}
