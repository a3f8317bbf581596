// The policy document of a browser POST upload (AWS *Creating a POST policy*): expiration and
// conditions (exact match, `starts-with`, `content-length-range`), and the rule that every form
// field is covered by a condition.

import { S3Error } from '../errors/errors.js';

type Condition =
  | { kind: 'eq'; field: string; value: string; text: string }
  | { kind: 'starts-with'; field: string; prefix: string; text: string }
  | { kind: 'range'; min: number; max: number };

export interface PostPolicy {
  expiration: number;
  conditions: Condition[];
}

/** Fields no condition needs to name (AWS: x-amz-signature, file, policy, x-ignore-*; SigV2: AWSAccessKeyId, signature; and x-amz-checksum-*, which the upload is checked against). */
const EXEMPT = new Set(['x-amz-signature', 'file', 'policy', 'awsaccesskeyid', 'signature']);

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function invalid(detail: string): never {
  throw new S3Error('InvalidPolicyDocument', {}, { message: `Invalid Policy: ${detail}` });
}

function fieldOf(ref: unknown, text: string): string {
  if (typeof ref !== 'string' || !ref.startsWith('$')) invalid(`Invalid Condition: ${text}`);
  return ref.slice(1).toLowerCase();
}

export function parsePostPolicy(base64: string): PostPolicy {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    invalid('Invalid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) invalid('Invalid JSON.');
  const d = doc as Record<string, unknown>;
  if (d['expiration'] === undefined) invalid('Policy missing expiration.');
  // ISO 8601 in UTC, as AWS documents it (2007-12-01T12:00:00.000Z): no other date form
  const expiration = typeof d['expiration'] === 'string' && ISO_UTC.test(d['expiration']) ? Date.parse(d['expiration']) : NaN;
  if (Number.isNaN(expiration)) invalid(`Invalid 'expiration' value: '${String(d['expiration'])}'`);
  if (!Array.isArray(d['conditions'])) invalid('Policy missing conditions.');
  const conditions: Condition[] = [];
  for (const c of d['conditions'] as unknown[]) {
    const text = JSON.stringify(c);
    if (Array.isArray(c)) {
      const op = typeof c[0] === 'string' ? c[0].toLowerCase() : '';
      if (op === 'content-length-range') {
        const [min, max] = [Number(c[1]), Number(c[2])];
        if (c.length !== 3 || !Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) invalid(`Invalid content-length-range: ${text}`);
        conditions.push({ kind: 'range', min, max });
      } else if ((op === 'eq' || op === 'starts-with') && c.length === 3 && typeof c[2] === 'string') {
        const field = fieldOf(c[1], text);
        conditions.push(op === 'eq' ? { kind: 'eq', field, value: c[2], text } : { kind: 'starts-with', field, prefix: c[2], text });
      } else invalid(`Invalid Condition: ${text}`);
    } else if (typeof c === 'object' && c !== null && Object.keys(c).length === 1) {
      const [name, value] = Object.entries(c)[0]!;
      if (typeof value !== 'string') invalid(`Invalid Simple-Condition: ${text}`);
      conditions.push({ kind: 'eq', field: name.toLowerCase(), value, text });
    } else invalid(`Invalid Condition: ${text}`);
  }
  return { expiration, conditions };
}

function refused(detail: string): never {
  throw new S3Error('AccessDenied', {}, { message: `Invalid according to Policy: ${detail}` });
}

/** Expiration, each condition against the form fields (plus `bucket`), and every field covered. */
export function checkPostPolicy(policy: PostPolicy, fields: ReadonlyMap<string, string>, bucket: string, now: number): void {
  if (now > policy.expiration) refused('Policy expired.');
  const value = (f: string) => (f === 'bucket' ? bucket : fields.get(f));
  const covered = new Set<string>(['bucket']);
  for (const c of policy.conditions) {
    if (c.kind === 'range') continue;
    covered.add(c.field);
    // a field the form lacks counts as empty: ["starts-with", "$x", ""] holds without it
    const v = value(c.field) ?? '';
    const ok = c.kind === 'eq' ? v === c.value : v.startsWith(c.prefix);
    if (!ok) refused(`Policy Condition failed: ${c.text}`);
  }
  for (const name of fields.keys()) {
    if (EXEMPT.has(name) || name.startsWith('x-ignore-') || name.startsWith('x-amz-checksum-') || covered.has(name)) continue;
    refused(`Extra input fields: ${name}`);
  }
}

/** `content-length-range` applied to the file size (EntityTooSmall / EntityTooLarge, as S3 answers). */
export function checkContentLength(policy: PostPolicy, size: number): void {
  for (const c of policy.conditions) {
    if (c.kind !== 'range') continue;
    if (size < c.min) throw new S3Error('EntityTooSmall', { ProposedSize: size, MinSizeAllowed: c.min });
    if (size > c.max) throw new S3Error('EntityTooLarge', { ProposedSize: size, MaxSizeAllowed: c.max });
  }
}
