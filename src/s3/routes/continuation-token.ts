// ListObjectsV2's continuation token: opaque to clients, checked when it comes back.

import { createHash } from 'node:crypto';
import { S3Error } from '../errors/errors.js';

const MAX_TOKEN_BYTES = 2048;
/** format byte leading every continuation token, so that a later format can be told apart */
const TOKEN_FORMAT = 2;
/** bytes of the check that ends a token: a token cut short or altered is refused, as S3's are */
const TOKEN_CHECK_BYTES = 4;

function tokenCheck(body: Buffer): Buffer {
  return createHash('sha256').update(body).digest().subarray(0, TOKEN_CHECK_BYTES);
}

/** An opaque token naming where the next page starts: format byte, the last item, a check of both. */
export function encodeToken(lastItem: string): string {
  const body = Buffer.concat([Buffer.from([TOKEN_FORMAT]), Buffer.from(lastItem)]);
  return Buffer.concat([body, tokenCheck(body)]).toString('base64url');
}

export function decodeToken(token: string): string {
  const bytes = Buffer.from(token, 'base64url');
  const body = bytes.subarray(0, bytes.length - TOKEN_CHECK_BYTES);
  const valid = token.length <= MAX_TOKEN_BYTES && bytes.length > TOKEN_CHECK_BYTES && bytes[0] === TOKEN_FORMAT &&
    bytes.toString('base64url') === token.replace(/=+$/, '') && tokenCheck(body).equals(bytes.subarray(body.length));
  if (!valid) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'continuation-token' }, {
      message: 'The continuation token provided is incorrect',
    });
  }
  return body.subarray(1).toString('utf8');
}
