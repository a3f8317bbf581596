// Object tags (s3.md §3.19): the `x-amz-tagging` header's query form, the Tagging XML body, and
// AWS's limits (10 tags, keys 1–128 and values 0–256 characters, unique keys, AWS's tag alphabet,
// no `aws:` keys).

import { percentDecode } from '../http/query.js';
import { S3Error } from './errors/errors.js';
import { el, doc } from './xml.js';
import { childrenOf, parseExactXml, textOf } from './xml-input.js';

export type TagSet = Array<[string, string]>;

export const MAX_TAGS = 10;
/** a bucket's own tags (AWS: 50 user tags per resource) */
export const MAX_BUCKET_TAGS = 50;
const MAX_TAG_KEY = 128;
const MAX_TAG_VALUE = 256;
/** AWS's tag pattern (S3 API reference, S3Tag): letters, digits, space separators (not TAB) and `_ . : / = + - @`. */
const TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
/** the prefix of AWS's own system tags, which requesters may not set */
const RESERVED_PREFIX = 'aws:';

function invalidTag(message: string, extras: Record<string, string> = {}): S3Error {
  return new S3Error('InvalidTag', extras, { message });
}

/** Unicode characters, as AWS counts tag lengths. */
function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function validateTags(tags: TagSet, max = MAX_TAGS): TagSet {
  const objectTags = max === MAX_TAGS;
  if (tags.length > max) {
    // S3's code differs too: BadRequest for a bucket's tags
    if (!objectTags) throw new S3Error('BadRequest', {}, { message: `Bucket tag count cannot be greater than ${max}` });
    throw invalidTag(`Object tags cannot be greater than ${MAX_TAGS}`);
  }
  const seen = new Set<string>();
  for (const [key, value] of tags) {
    if (key.startsWith(RESERVED_PREFIX)) {
      // S3's wording differs between object and bucket tags (as LocalStack's AWS-recorded snapshots show)
      throw invalidTag(objectTags ? 'Your TagKey cannot be prefixed with aws:' : 'System tags cannot be added/updated by requester');
    }
    if (chars(key) < 1 || chars(key) > MAX_TAG_KEY || !TAG_CHARS.test(key)) {
      throw invalidTag('The TagKey you have provided is invalid', { TagKey: key });
    }
    if (chars(value) > MAX_TAG_VALUE || !TAG_CHARS.test(value)) throw invalidTag('The TagValue you have provided is invalid');
    if (seen.has(key)) throw invalidTag('Cannot provide multiple Tags with the same key');
    seen.add(key);
  }
  return tags;
}

/** `x-amz-tagging: k1=v1&k2=v2` (URL query form); undefined when absent. */
export function parseTaggingHeader(value: string | undefined): TagSet | undefined {
  if (value === undefined) return undefined;
  const tags: TagSet = [];
  for (const pair of value.split('&')) {
    // an empty pair (`&`, a trailing `&`) names no tag, as in any URL query
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const k = percentDecode(eq < 0 ? pair : pair.slice(0, eq), true);
    const v = eq < 0 ? '' : percentDecode(pair.slice(eq + 1), true);
    if (k === undefined || v === undefined) {
      throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-tagging', ArgumentValue: value }, {
        message: 'The header \'x-amz-tagging\' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.',
      });
    }
    tags.push([k, v]);
  }
  return validateTags(tags);
}

/** The Tagging body of PutObjectTagging (or, with `max` 50, PutBucketTagging). */
export function parseTaggingXml(body: Buffer, max = MAX_TAGS): TagSet {
  const root = parseExactXml(body, 'Tagging');
  const setNode = root['TagSet'];
  if (setNode === undefined || Array.isArray(setNode)) throw new S3Error('MalformedXML');
  const tags: TagSet = [];
  if (typeof setNode !== 'string') {
    for (const tag of childrenOf(setNode, 'Tag')) {
      const key = textOf(tag, 'Key');
      const value = textOf(tag, 'Value');
      if (key === undefined || value === undefined) throw new S3Error('MalformedXML');
      tags.push([key, value]);
    }
  }
  return validateTags(tags, max);
}

/** The Tagging document, tags in key order (a stable order, as S3 clients and test suites compare TagSets as lists). */
export function renderTagging(tags: TagSet): string {
  const inner = [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `<Tag>${el('Key', k)}${el('Value', v)}</Tag>`).join('');
  return doc('Tagging', `<TagSet>${inner}</TagSet>`);
}
