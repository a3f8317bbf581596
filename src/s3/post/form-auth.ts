// Who signed a POST form (AWS *Browser-based uploads using POST*): SigV4 (`x-amz-algorithm`,
// `x-amz-credential`, `x-amz-date`, `x-amz-signature` = hex HMAC of the base64 policy with the
// scope's signing key) or SigV2 (`AWSAccessKeyId`, `signature` = base64 HMAC-SHA1 of the policy).
// No policy and no signature: an anonymous upload.

import { createHmac } from 'node:crypto';
import { S3Error } from '../errors/errors.js';
import { SIGV4_ALGORITHM } from '../sigv4/constants.js';
import { parseCredentialScope } from '../sigv4/credential-scope.js';
import { lookupAccessKey, signingKeyFor } from '../sigv4/keys.js';
import { parseAmzDate } from '../sigv4/request-time.js';
import { hmacHex, signaturesEqual } from '../sigv4/signing-key.js';
import type { AuthContext } from '../sigv4/types.js';

/** The access key that signed the form, or undefined for an unsigned (anonymous) form. */
export function formSigner(fields: ReadonlyMap<string, string>, ctx: AuthContext): string | undefined {
  const policy = fields.get('policy');
  const v4sig = fields.get('x-amz-signature');
  const v2key = fields.get('awsaccesskeyid');
  if (policy === undefined) {
    if (v4sig !== undefined || v2key !== undefined) {
      throw new S3Error('InvalidArgument', { ArgumentName: 'Policy' }, { message: 'Bucket POST must contain a field named \'policy\'.' });
    }
    return undefined;
  }
  if (v2key !== undefined) {
    const signature = fields.get('signature');
    if (signature === undefined) throw new S3Error('InvalidArgument', { ArgumentName: 'Signature' }, { message: 'Bucket POST must contain a field named \'Signature\'.' });
    const key = lookupAccessKey(ctx, v2key);
    const expected = createHmac('sha1', key.secretKey).update(policy, 'utf8').digest('base64');
    if (!signaturesEqual(expected, signature)) throw new S3Error('SignatureDoesNotMatch', { AWSAccessKeyId: v2key, StringToSign: policy, SignatureProvided: signature });
    return v2key;
  }
  for (const f of ['x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature']) {
    if (fields.get(f) === undefined) throw new S3Error('InvalidArgument', { ArgumentName: f }, { message: `Bucket POST must contain a field named '${f}'.` });
  }
  if (fields.get('x-amz-algorithm') !== SIGV4_ALGORITHM) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-algorithm', ArgumentValue: fields.get('x-amz-algorithm') }, { message: `Only ${SIGV4_ALGORITHM} is supported.` });
  }
  if (Number.isNaN(parseAmzDate(fields.get('x-amz-date')!))) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-date', ArgumentValue: fields.get('x-amz-date') }, { message: 'X-Amz-Date must be in the ISO8601 Long Format' });
  }
  const cred = parseCredentialScope(fields.get('x-amz-credential')!, ctx, (detail) =>
    new S3Error('InvalidArgument', { ArgumentName: 'x-amz-credential', ArgumentValue: fields.get('x-amz-credential') }, { message: `Error parsing the X-Amz-Credential parameter; ${detail}` }),
  );
  const key = lookupAccessKey(ctx, cred.accessKeyId);
  const expected = hmacHex(signingKeyFor(ctx, cred, key.secretKey), policy);
  if (!signaturesEqual(expected, v4sig!.toLowerCase())) {
    throw new S3Error('SignatureDoesNotMatch', { AWSAccessKeyId: cred.accessKeyId, StringToSign: policy, SignatureProvided: v4sig });
  }
  return cred.accessKeyId;
}
