// `tusk scrub`: reads every record of every segment of a data directory without the index, checks
// header, trailer and body CRC32C, and names what is damaged (the trailer holds `bucket 0x00 key`).
// Then it asks the index what no record walk can tell: which acknowledged bodies lie past the end
// of a segment file that lost bytes, or in one that is gone (damage.ts). Synchronous, offline: run
// it on a data directory no server has open.

import fs from 'node:fs';
import path from 'node:path';
import type { Crc32c } from './crc32c.js';
import { decodeSegmentHeader, SEGMENT_HEADER_SIZE } from './format.js';
import { findDamage, type ShortSegment } from './damage.js';
import { openIndex, type IndexDb } from './index-db.js';
import { checkRecordSync, nextRecordStart } from './record-check.js';
import { parseSegmentFileName, segmentFileName } from './segment-files.js';

export interface DamagedRecord {
  segment: number;
  /** offset of the record header in the segment file */
  offset: number;
  bucket: string;
  key: string;
}

export interface ScrubReport {
  segments: number;
  records: number;
  bytes: number;
  /** records whose body does not match its CRC32C */
  corrupt: DamagedRecord[];
  /** segments with a bad header, or unreadable bytes before their end */
  damagedSegments: Array<{ segment: number; offset: number; reason: string }>;
  /** reservations never committed (aborted writes, crashes): dead space, not damage */
  uncommitted: number;
  /** bytes skipped where no record header was found (a write a crash cut off before a later record) */
  holeBytes: number;
  /** segments holding fewer bytes than the index says they do, or gone */
  shortSegments: ShortSegment[];
  /** versions and parts whose bodies lost bytes that way: damage */
  missing: Array<{ name: string; missing: number }>;
}

export function scrubSegments(dataDir: string, crc32c: Crc32c): ScrubReport {
  const dir = path.join(dataDir, 'segments');
  const report: ScrubReport = {
    segments: 0,
    records: 0,
    bytes: 0,
    corrupt: [],
    damagedSegments: [],
    uncommitted: 0,
    holeBytes: 0,
    shortSegments: [],
    missing: [],
  };
  const numbers = fs
    .readdirSync(dir)
    .map(parseSegmentFileName)
    .filter((n): n is number => n !== undefined)
    .sort((a, b) => a - b);
  for (const segment of numbers) {
    report.segments++;
    const fd = fs.openSync(path.join(dir, segmentFileName(segment)), 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const header = Buffer.alloc(SEGMENT_HEADER_SIZE);
      fs.readSync(fd, header, 0, SEGMENT_HEADER_SIZE, 0);
      if (decodeSegmentHeader(header, crc32c)?.segment !== segment) {
        report.damagedSegments.push({ segment, offset: 0, reason: 'bad segment header' });
        continue;
      }
      for (let pos = SEGMENT_HEADER_SIZE; pos < size; ) {
        const check = checkRecordSync(fd, pos, size, crc32c);
        if (check.status === 'invalid') {
          const next = nextRecordStart(fd, pos, size);
          report.holeBytes += next - pos;
          pos = next;
          continue;
        }
        if (check.status === 'uncommitted') report.uncommitted++;
        else {
          report.records++;
          report.bytes += check.header.bodyLength;
          if (check.status === 'corrupt') {
            const name = check.trailer.key;
            const zero = name.indexOf(0);
            report.corrupt.push({
              segment,
              offset: pos,
              bucket: name.toString('utf8', 0, zero),
              key: name.toString('utf8', zero + 1),
            });
          }
        }
        pos += check.header.recordLength;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  checkAgainstIndex(dataDir, numbers, report);
  return report;
}

/** Compares each segment file's size with the end the index records for it, and names the bodies that lost bytes. */
function checkAgainstIndex(dataDir: string, numbers: number[], report: ScrubReport): void {
  if (!fs.existsSync(path.join(dataDir, 'index.mdb'))) return;
  let index: IndexDb;
  try {
    index = openIndex(dataDir, { readOnly: true });
  } catch (e) {
    // an index of an older format is upgraded by the server's first start, not here
    throw new Error(`${dataDir}: the index cannot be read to check the segment sizes against it (${(e as Error).message}); start the server once first`);
  }
  try {
    const short = new Map<number, ShortSegment>();
    for (const { key: segment, value } of index.segments.getRange({})) {
      const size = numbers.includes(segment) ? fs.statSync(path.join(dataDir, 'segments', segmentFileName(segment))).size : 0;
      if (size < value.end) short.set(segment, { segment, size, end: value.end });
    }
    report.shortSegments = [...short.values()];
    if (short.size > 0) report.missing = findDamage(index, short).damaged.map(({ name, missing }) => ({ name, missing }));
  } finally {
    index.env.close();
  }
}
