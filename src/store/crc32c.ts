// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), slice-by-8 in plain TypeScript: the storage
// engine's fallback when no native implementation is injected (see StoreInternals.crc32c).

/** Continues a CRC32C over `buf`; `seed` is the CRC of the bytes before it (0 to start). */
export type Crc32c = (buf: Uint8Array, seed: number) => number;

const POLY = 0x82f63b78;

const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    tables[0]![n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[0]![n]!;
    for (let t = 1; t < 8; t++) {
      c = tables[0]![c & 0xff]! ^ (c >>> 8);
      tables[t]![n] = c >>> 0;
    }
  }
  return tables;
})();

const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

export const crc32cJs: Crc32c = (buf, seed) => {
  let crc = ~seed >>> 0;
  let i = 0;
  const n = buf.length;
  const end8 = n - (n & 7);
  while (i < end8) {
    const lo = (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) ^ crc;
    crc =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[buf[i + 4]!]! ^
      T2[buf[i + 5]!]! ^
      T1[buf[i + 6]!]! ^
      T0[buf[i + 7]!]!;
    i += 8;
  }
  while (i < n) crc = T0[(crc ^ buf[i++]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
};

const CHECK_INPUT = Buffer.from('123456789');
const CHECK_VALUE = 0xe3069283;

/** The native CRC32C (SIMD) when the module is built and passes the check value, else the TypeScript one. */
export async function fastestCrc32c(): Promise<Crc32c> {
  try {
    const native = await import('../native/native.js');
    const candidate: Crc32c = (buf, seed) => native.crc32c(buf, seed);
    const chained = candidate(CHECK_INPUT.subarray(4), candidate(CHECK_INPUT.subarray(0, 4), 0));
    if (candidate(CHECK_INPUT, 0) === CHECK_VALUE && chained === CHECK_VALUE) return candidate;
  } catch {
    // native module not built: the TypeScript implementation is correct, only slower
  }
  return crc32cJs;
}
