// MFA delete (s3.md §2.14): the `x-amz-mfa` header ("serial code") checked against the bucket
// owner's TOTP devices. Where it is required and missing, or present and wrong: 403 AccessDenied.

import type { S3Bucket } from './object-attrs.js';
import type { S3Context } from './context.js';
import { S3Error } from './errors/errors.js';

export const MFA_HEADER = 'x-amz-mfa';

export function mfaDeleteEnabled(bucket: S3Bucket): boolean {
  return bucket.versionControl?.mfaDelete === 'Enabled';
}

export function mfaInvalid(): S3Error {
  return new S3Error('AccessDenied', {}, { message: 'The provided MFA token is invalid' });
}

export function mfaMissing(): S3Error {
  return new S3Error('AccessDenied', {}, { message: 'Mfa Authentication must be used for this request' });
}

/**
 * Checks `x-amz-mfa` (`header`, routes/deletes.ts) for a request on `bucket`: required → must be present and valid; optional →
 * validated if present and the owner has a device, ignored otherwise. A valid code is used up.
 * Returns whether a valid code was presented.
 */
export function checkMfa(ctx: S3Context, bucket: S3Bucket, header: string | undefined, required: boolean): boolean {
  const devices = ctx.services.mfa;
  if (header === undefined) {
    if (required) throw mfaMissing();
    return false;
  }
  if (!required && !devices.hasDevice(bucket.owner)) return false;
  if (devices.verify(bucket.owner, header) !== 'valid') throw mfaInvalid();
  return true;
}
