// Start-up recovery of the segment files. The index is the truth: bytes past the end of a segment's
// last indexed record were never acknowledged (the index commits only after the body is durable), so
// they are checked record by record for the report and then truncated. Synchronous: runs before the
// server accepts requests.

import fs from 'node:fs';
import type { Crc32c } from './crc32c.js';
import type { ShortSegment } from './damage.js';
import { decodeSegmentHeader, SEGMENT_HEADER_SIZE } from './format.js';
import type { SegmentStats } from './index-db.js';
import { checkRecordSync } from './record-check.js';
import { parseSegmentFileName, segmentFileName } from './segment-files.js';
import path from 'node:path';

export interface RecoveredSegment {
  segment: number;
  fd: number;
  /** first free byte: the end of the last indexed record */
  end: number;
}

export interface RecoveryReport {
  /** segment files kept */
  segments: number;
  /** records found past the last indexed record, by what the check found */
  tailValid: number;
  tailUncommitted: number;
  tailCorrupt: number;
  /** unparseable bytes (torn header or hole) where the tail check stopped */
  tailTorn: number;
  truncatedBytes: number;
  /** files holding no committed record (crash before their first commit): deleted */
  removedSegments: number[];
  /**
   * files shorter than the index says, and indexed segments whose file is gone (size 0): bytes
   * acknowledged as durable are missing (a disk or file-system fault; or an OS crash in relaxed
   * mode, which never flushed them). damage.ts finds the versions and parts that lost bytes.
   */
  shortSegments: ShortSegment[];
}

export function recoverSegments(
  dir: string,
  stats: Map<number, SegmentStats>,
  crc32c: Crc32c,
): { segments: RecoveredSegment[]; report: RecoveryReport } {
  const report: RecoveryReport = {
    segments: 0,
    tailValid: 0,
    tailUncommitted: 0,
    tailCorrupt: 0,
    tailTorn: 0,
    truncatedBytes: 0,
    removedSegments: [],
    shortSegments: [],
  };
  const numbers = fs
    .readdirSync(dir)
    .map(parseSegmentFileName)
    .filter((n): n is number => n !== undefined)
    .sort((a, b) => a - b);
  const highest = numbers.at(-1);
  const segments: RecoveredSegment[] = [];

  for (const segment of numbers) {
    const file = path.join(dir, segmentFileName(segment));
    const indexed = stats.get(segment);
    const fd = fs.openSync(file, 'r+');
    const header = Buffer.alloc(SEGMENT_HEADER_SIZE);
    const headerBytes = fs.readSync(fd, header, 0, SEGMENT_HEADER_SIZE, 0);
    const valid = headerBytes === SEGMENT_HEADER_SIZE && decodeSegmentHeader(header, crc32c)?.segment === segment;
    if (!indexed && (!valid || segment !== highest)) {
      fs.closeSync(fd);
      fs.unlinkSync(file);
      report.removedSegments.push(segment);
      continue;
    }
    if (!valid) {
      fs.closeSync(fd);
      throw new Error(`segment ${file}: bad segment header`);
    }
    const end = indexed?.end ?? SEGMENT_HEADER_SIZE;
    const size = fs.fstatSync(fd).size;
    if (size < end) report.shortSegments.push({ segment, size, end });
    else if (size > end) {
      checkTail(fd, end, size, crc32c, report);
      report.truncatedBytes += size - end;
      fs.ftruncateSync(fd, end);
      fs.fsyncSync(fd);
    }
    segments.push({ segment, fd, end });
  }
  for (const [segment, { end }] of stats) if (!numbers.includes(segment)) report.shortSegments.push({ segment, size: 0, end });
  report.segments = segments.length;
  return { segments, report };
}

function checkTail(fd: number, from: number, size: number, crc32c: Crc32c, report: RecoveryReport): void {
  let pos = from;
  while (pos < size) {
    const check = checkRecordSync(fd, pos, size, crc32c);
    if (check.status === 'invalid') {
      report.tailTorn++;
      return;
    }
    if (check.status === 'valid') report.tailValid++;
    else if (check.status === 'corrupt') report.tailCorrupt++;
    else report.tailUncommitted++;
    pos += check.header.recordLength;
  }
}
