// Which headers must be covered by the signature (s3.md §2.4).

import { S3Error } from '../errors/errors.js';
import { H_AMZ_CONTENT_SHA256, H_AMZ_PREFIX, H_CONTENT_MD5, H_HOST, MSG_HEADERS_NOT_SIGNED } from './constants.js';

/**
 * `host`, every `x-amz-*` header and `content-md5` present in the request must be signed; presigned
 * URLs are exempt for `x-amz-content-sha256` (the URL is signed before the body is known). Applying
 * the rule to header auth too is a deliberate superset of S3 (s3.md §2.4, §8 #9).
 */
export function checkSignedHeaderRequirements(
  headerList: ReadonlyArray<readonly [string, string]>,
  signedNames: readonly string[],
  presigned: boolean,
): void {
  let unsigned: string[] | undefined;
  if (!signedNames.includes(H_HOST)) unsigned = [H_HOST];
  for (const [name] of headerList) {
    if (!(name.startsWith(H_AMZ_PREFIX) || name === H_CONTENT_MD5)) continue;
    if (presigned && name === H_AMZ_CONTENT_SHA256) continue;
    if (signedNames.includes(name)) continue;
    if (unsigned === undefined) unsigned = [name];
    else if (!unsigned.includes(name)) unsigned.push(name);
  }
  if (unsigned !== undefined) {
    throw new S3Error('AccessDenied', { HeadersNotSigned: unsigned.join(', ') }, { message: MSG_HEADERS_NOT_SIGNED });
  }
}
