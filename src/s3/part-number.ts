// The `partNumber` query parameter of UploadPart, UploadPartCopy and GET/HEAD object (s3.md §3.21, §3.0.6).

import { S3Error } from './errors/errors.js';

export const MAX_PART_NUMBER = 10000;

/** 1…10000, else 400 InvalidArgument. */
export function parsePartNumber(raw: string): number {
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_PART_NUMBER)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'partNumber', ArgumentValue: raw }, {
      message: 'Part number must be an integer between 1 and 10000, inclusive',
    });
  }
  return n;
}
