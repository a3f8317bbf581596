// SigV4 header authentication: `Authorization: AWS4-HMAC-SHA256 …` (s3.md §2.2–§2.6).

import { S3Error } from '../errors/errors.js';
import type { RequestHead } from '../../http/request-head.js';
import {
  H_AMZ_CONTENT_SHA256,
  H_AMZ_DATE,
  H_DATE,
  MSG_CREDENTIAL_DATE,
  MSG_MISSING_CONTENT_SHA256,
  MSG_NO_VALID_DATE,
} from './constants.js';
import { headerMalformed, parseAuthorizationParams } from './authorization-header.js';
import { canonicalQueryString, type QueryItem } from './canonical-request.js';
import { parseCredentialScope } from './credential-scope.js';
import { classifyContentSha256 } from './payload-mode.js';
import { parseAmzDate, parseHttpDate, toAmzDate, toIsoSeconds } from './request-time.js';
import { checkSignedHeaderRequirements } from './signed-headers.js';
import { lookupAccessKey, signingKeyFor } from './keys.js';
import type { AuthContext, SignedAuth } from './types.js';
import { verifySignature } from './verify-signature.js';

/** `params` = the Authorization value after `AWS4-HMAC-SHA256 `. */
export function authenticateHeader(
  head: RequestHead,
  params: string,
  query: readonly QueryItem[],
  ctx: AuthContext,
): SignedAuth {
  const parts = parseAuthorizationParams(params);
  const cred = parseCredentialScope(parts.credential, ctx, headerMalformed);
  const key = lookupAccessKey(ctx, cred.accessKeyId);

  // Request time: x-amz-date, else Date (s3.md §2.5).
  const amzDate = head.headers[H_AMZ_DATE];
  let requestMs: number;
  let requestTime: string;
  let sentTime: string;
  if (amzDate !== undefined) {
    sentTime = amzDate;
    requestMs = parseAmzDate(amzDate);
    requestTime = amzDate;
  } else {
    sentTime = head.headers[H_DATE] ?? '';
    requestMs = parseHttpDate(sentTime);
    requestTime = Number.isNaN(requestMs) ? '' : toAmzDate(requestMs);
  }
  if (Number.isNaN(requestMs)) throw new S3Error('AccessDenied', {}, { message: MSG_NO_VALID_DATE });
  if (!/^\d{8}$/.test(cred.date)) {
    throw headerMalformed(`incorrect date format "${cred.date}". This date in the credential must be in the format "yyyyMMdd".`);
  }
  if (cred.date !== requestTime.slice(0, 8)) throw headerMalformed(MSG_CREDENTIAL_DATE);
  if (Math.abs(ctx.now - requestMs) > ctx.clockSkewMs) {
    throw new S3Error('RequestTimeTooSkewed', {
      RequestTime: sentTime,
      ServerTime: toIsoSeconds(ctx.now),
      MaxAllowedSkewMilliseconds: ctx.clockSkewMs,
    });
  }

  if (parts.signedHeaders.length === 0) throw headerMalformed('the SignedHeaders component is empty.');
  const signedNames = parts.signedHeaders.split(';');
  checkSignedHeaderRequirements(head.headerList, signedNames, false);

  const hashedPayload = head.headers[H_AMZ_CONTENT_SHA256];
  if (hashedPayload === undefined) {
    throw new S3Error('InvalidRequest', {}, { message: MSG_MISSING_CONTENT_SHA256 });
  }
  const payload = classifyContentSha256(hashedPayload);

  const signingKey = signingKeyFor(ctx, cred, key.secretKey);
  const seedSignature = verifySignature({
    accessKeyId: cred.accessKeyId,
    method: head.method,
    rawPath: head.rawPath,
    canonicalQuery: canonicalQueryString(query),
    headerList: head.headerList,
    signedHeaders: parts.signedHeaders,
    signedNames,
    hashedPayload,
    requestTime,
    scope: cred.scope,
    signingKey,
    providedSignature: parts.signature,
  });

  return {
    kind: 'signed',
    accessKeyId: cred.accessKeyId,
    accountId: key.accountId,
    presigned: false,
    payload,
    signingKey,
    scope: cred.scope,
    requestTime,
    seedSignature,
    hoistedHeaders: {},
  };
}
