// Access-key lookup and the process-wide signing-key cache (s3.md §2.2, §2.3).

import { S3Error } from '../errors/errors.js';
import { SigningKeyCache } from './signing-key.js';
import type { CredentialScope } from './credential-scope.js';
import type { AccessKeyRecord, AuthContext } from './types.js';

const defaultCache = new SigningKeyCache();

export function lookupAccessKey(ctx: AuthContext, accessKeyId: string): AccessKeyRecord {
  const key = ctx.lookupKey(accessKeyId);
  if (key === undefined) throw new S3Error('InvalidAccessKeyId', { AWSAccessKeyId: accessKeyId });
  return key;
}

export function signingKeyFor(ctx: AuthContext, cred: CredentialScope, secretKey: string): Buffer {
  return (ctx.signingKeyCache ?? defaultCache).get(cred.accessKeyId, secretKey, cred.date, cred.region);
}
