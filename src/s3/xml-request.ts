// Reads and parses a small XML request body (s3.md §4 "Request bodies"): empty where one is
// required → MissingRequestBodyError; over `max` → MaxMessageLengthExceeded; bad → MalformedXML.
// Configuration PUTs that AWS guards with an integrity check (object lock, retention, legal hold,
// lifecycle: "Content-MD5 … is required") need Content-MD5 or an x-amz-checksum-*, verified here.

import type { S3Context } from './context.js';
import { S3Error } from './errors/errors.js';
import { readCheckedBody } from './request-body.js';
import { parseXmlBody, type XmlNode } from './xml-input.js';

/** Configuration documents are small; AWS caps most of them far below this. */
export const MAX_CONFIG_XML_BYTES = 1 << 20;

export async function readXmlRequest(
  ctx: S3Context,
  root: string,
  arrays: readonly string[] = [],
  integrity: 'required' | 'optional' = 'optional',
): Promise<XmlNode> {
  const text = (await readCheckedBody(ctx, MAX_CONFIG_XML_BYTES, integrity === 'required')).toString('utf8');
  if (!text.trim()) throw new S3Error('MissingRequestBodyError');
  return parseXmlBody(text, root, arrays);
}
