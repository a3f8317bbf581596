// The version id of GetObject/HeadObject/DeleteObject: query `versionId` [S3] and header
// `x-amz-version-id` [SEED] (s3.md §3.0.7).

import { S3Error } from '../errors/errors.js';
import type { RequestInput } from './input.js';

const VERSION_ID = /^[0-9A-Za-z]{32}$/;

/** A version id this server could have made (not 'null'). */
export function isVersionId(v: string): boolean {
  return VERSION_ID.test(v);
}

/** undefined when none was given; 'null' for the null version; throws InvalidArgument when malformed or conflicting. */
export function requestedVersionId({ query, headers }: RequestInput): string | undefined {
  const fromQuery = query.get('versionId');
  const fromHeader = headers['x-amz-version-id'];
  if (fromQuery !== undefined && fromHeader !== undefined && fromQuery !== fromHeader) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'versionId', ArgumentValue: fromQuery }, {
      message: 'The versionId query parameter and the x-amz-version-id header do not match',
    });
  }
  const v = fromQuery ?? fromHeader;
  if (v === undefined) return undefined;
  if (v !== 'null' && !isVersionId(v)) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'versionId', ArgumentValue: v }, {
      message: 'Invalid version id specified',
    });
  }
  return v;
}
