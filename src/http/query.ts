// Percent-decoding of query strings and paths, shared by both faces (s3.md §1.2, §2.3).

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Percent-decodes to bytes, then UTF-8 (fatal). `plusIsSpace` for query components. Returns undefined when invalid. */
export function percentDecode(raw: string, plusIsSpace: boolean): string | undefined {
  if (!raw.includes('%') && !(plusIsSpace && raw.includes('+'))) return raw;
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(raw));
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes[n++] = parseInt(hex, 16);
      i += 2;
    } else if (c === 0x2b && plusIsSpace) {
      bytes[n++] = 0x20;
    } else if (c < 0x80) {
      bytes[n++] = c;
    } else {
      n += bytes.write(raw[i]!, n);
    }
  }
  try {
    return utf8.decode(bytes.subarray(0, n));
  } catch {
    return undefined;
  }
}
