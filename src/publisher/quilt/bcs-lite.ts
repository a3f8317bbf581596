// The few BCS shapes quilts use: ULEB128 lengths, strings, and BTreeMap<String, String>.

import { readUleb128, ulebLength, writeUleb128 } from '../nodes/bcs.js';

export function bcsUleb(value: number): Buffer {
  const out = Buffer.alloc(ulebLength(value));
  writeUleb128(value, out, 0);
  return out;
}

export function bcsString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([bcsUleb(bytes.length), bytes]);
}

/** The bcs crate writes map entries ordered by their serialized keys' bytes. */
export function bcsStringMap(map: Record<string, string>): Buffer {
  const entries = Object.entries(map).map(([k, v]) => [bcsString(k), bcsString(v)] as const);
  entries.sort(([a], [b]) => Buffer.compare(a, b));
  return Buffer.concat([bcsUleb(entries.length), ...entries.flat()]);
}

export class BcsReader {
  private at = 0;

  constructor(private readonly bytes: Buffer) {}

  uleb(): number {
    const got = readUleb128(this.bytes, this.at);
    if (!got) throw new RangeError('BCS: truncated ULEB128');
    this.at = got.next;
    return got.value;
  }

  u16(): number {
    if (this.at + 2 > this.bytes.length) throw new RangeError('BCS: truncated u16');
    const value = this.bytes.readUInt16LE(this.at);
    this.at += 2;
    return value;
  }

  string(): string {
    const length = this.uleb();
    if (this.at + length > this.bytes.length) throw new RangeError('BCS: truncated string');
    const text = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }

  stringMap(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let n = this.uleb(); n > 0; n--) {
      const key = this.string();
      out[key] = this.string();
    }
    return out;
  }
}
