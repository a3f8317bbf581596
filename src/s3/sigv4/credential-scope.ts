// `<AK>/<YYYYMMDD>/<region>/s3/aws4_request` of the Authorization header and of X-Amz-Credential
// (s3.md §2.2, §2.9). Both share the checks; only the error code and message prefix differ.

import { S3Error, type ErrorExtras } from '../errors/errors.js';
import { H_AMZ_BUCKET_REGION, MSG_CREDENTIAL_FORMAT, SCOPE_TERMINATOR, SERVICE_S3 } from './constants.js';
import type { AuthContext } from './types.js';

export interface CredentialScope {
  accessKeyId: string;
  date: string;
  region: string;
  /** `<date>/<region>/s3/aws4_request` */
  scope: string;
}

export type ScopeErrorFactory = (detail: string, extras?: ErrorExtras, headers?: Record<string, string>) => S3Error;

export function parseCredentialScope(
  credential: string,
  ctx: Pick<AuthContext, 'region' | 'acceptAnyRegion'>,
  fail: ScopeErrorFactory,
): CredentialScope {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[0]!.length === 0) throw fail(MSG_CREDENTIAL_FORMAT);
  const [accessKeyId, date, region, service, terminator] = parts as [string, string, string, string, string];
  if (terminator !== SCOPE_TERMINATOR) {
    throw fail(`incorrect terminal '${terminator}'. This endpoint uses '${SCOPE_TERMINATOR}'.`);
  }
  if (service !== SERVICE_S3) throw fail(`incorrect service '${service}'. This endpoint belongs to '${SERVICE_S3}'.`);
  if (!ctx.acceptAnyRegion && region !== ctx.region) {
    // botocore re-signs with the region named in <Region> / x-amz-bucket-region (s3.md §2.2).
    throw fail(
      `the region '${region}' is wrong; expecting '${ctx.region}'`,
      { Region: ctx.region },
      { [H_AMZ_BUCKET_REGION]: ctx.region },
    );
  }
  if (region.length === 0) throw fail(MSG_CREDENTIAL_FORMAT);
  return { accessKeyId, date, region, scope: `${date}/${region}/${SERVICE_S3}/${SCOPE_TERMINATOR}` };
}
