// The headers of deletes and of the other requests MFA delete guards (s3.md §2.14, §3.0.9):
// `x-amz-mfa`, `x-amz-bypass-governance-retention`, DeleteObject's version id and If-Match. Only the
// version id can be refused here; whether the bucket has object lock or MFA delete, and whether the
// code is valid, are stored state the handlers check.

import { bypassRequested } from '../object-lock.js';
import { MFA_HEADER } from '../mfa-delete.js';
import type { RequestInput } from './input.js';
import { requestedVersionId } from './version-id.js';

/** `x-amz-mfa` ("serial code"), unchecked: DeleteBucket, PutBucketVersioning. */
export interface MfaParams {
  mfa?: string;
}

/** What DeleteObjects reads of its headers (its entries come from the body). */
export interface DeleteObjectsParams extends MfaParams {
  /** undefined when `x-amz-bypass-governance-retention` is absent; otherwise whether it says true */
  bypassGovernance?: boolean;
}

export interface DeleteObjectParams extends DeleteObjectsParams {
  versionId?: string;
  ifMatch?: string;
}

export function parseMfa({ headers }: RequestInput): MfaParams {
  return { mfa: headers[MFA_HEADER] };
}

export function parseDeleteObjects(input: RequestInput): DeleteObjectsParams {
  return { ...parseMfa(input), bypassGovernance: bypassRequested(input.headers) };
}

export function parseDeleteObject(input: RequestInput): DeleteObjectParams {
  const versionId = requestedVersionId(input);
  return { versionId, ...parseDeleteObjects(input), ifMatch: input.headers['if-match'] };
}
