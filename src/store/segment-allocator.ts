// Decides where the next record goes: the tail of the active segment, a fresh active segment when it
// is full, or a segment of its own for a record larger than the segment size. Reservation is
// synchronous, so concurrent writers get disjoint extents without locks.

import { RECORD_ALIGN, SEGMENT_HEADER_SIZE } from './format.js';
import type { SegmentFiles } from './segment-files.js';

export interface Reservation {
  segment: number;
  /** offset of the record header in the segment file */
  offset: number;
  length: number;
}

export class SegmentAllocator {
  constructor(
    private readonly files: SegmentFiles,
    private readonly segmentSize: number,
    private active: number,
    /** next free byte of the active segment; never below the end of its last indexed record */
    private tail: number,
    private nextSegment: number,
  ) {}

  reserve(length: number): Reservation {
    if (length % RECORD_ALIGN !== 0) throw new Error('record length must be aligned');
    if (SEGMENT_HEADER_SIZE + length > this.segmentSize) {
      const segment = this.newSegment();
      return { segment, offset: SEGMENT_HEADER_SIZE, length };
    }
    if (this.tail + length > this.segmentSize) {
      this.active = this.newSegment();
      this.tail = SEGMENT_HEADER_SIZE;
    }
    const offset = this.tail;
    this.tail += length;
    return { segment: this.active, offset, length };
  }

  /**
   * Seals the active segment: the next record goes to a new one, so that compaction may rewrite the
   * old one's live records and delete it. Writes already granted space in it finish there.
   */
  roll(): void {
    this.active = this.newSegment();
    this.tail = SEGMENT_HEADER_SIZE;
  }

  get activeSegment(): number {
    return this.active;
  }

  /** Where the next record in the active segment will start. */
  get position(): { segment: number; offset: number } {
    return { segment: this.active, offset: this.tail };
  }

  private newSegment(): number {
    const segment = this.nextSegment++;
    this.files.create(segment);
    return segment;
  }
}
