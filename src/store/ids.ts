// Version and upload ids: 32 URL-safe characters, the first 11 a base-62 sequence number that
// orders them in time (s3.md §3.0.7), the rest random. The sequence number also places a version
// in the index (versions are kept newest first), so a lookup by id is one get.

import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SEQ_CHARS = 11;
export const ID_LENGTH = 32;

/** Sequence numbers: ms since the epoch × 1024 plus a counter, never going backwards within a process. */
export class SequenceClock {
  constructor(private last: number) {}

  next(): number {
    this.last = Math.max(this.last + 1, Date.now() * 1024);
    return this.last;
  }

  get current(): number {
    return this.last;
  }
}

export function makeId(seq: number): string {
  let s = '';
  for (let n = seq, i = 0; i < SEQ_CHARS; i++, n = Math.floor(n / 62)) s = ALPHABET[n % 62]! + s;
  for (let i = SEQ_CHARS; i < ID_LENGTH; i++) s += ALPHABET[randomInt(62)]!;
  return s;
}

/** The sequence number an id was made from; undefined when `id` is not one of ours. */
export function seqOfId(id: string): number | undefined {
  if (id.length !== ID_LENGTH) return undefined;
  let n = 0;
  for (let i = 0; i < ID_LENGTH; i++) {
    const v = ALPHABET.indexOf(id[i]!);
    if (v < 0) return undefined;
    if (i < SEQ_CHARS) n = n * 62 + v;
  }
  return Number.isSafeInteger(n) ? n : undefined;
}
