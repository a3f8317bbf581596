// Lifecycle configuration (AWS PutBucketLifecycleConfiguration): parsing, validation, rendering
// and matching of rules. Stored in the bucket record's versionControl.lifecycle as given here.

import { randomBytes } from 'node:crypto';
import { S3Error } from '../errors/errors.js';
import type { S3Object } from '../object-attrs.js';
import type { S3Bucket } from '../object-attrs.js';
import { doc, el } from '../xml.js';
import { xmlBooleanOf, xmlChildren, xmlTextOf, type XmlNode } from '../xml-input.js';

export const MAX_RULES = 1000;
const MAX_ID_CHARS = 255;

export interface LifecycleFilter {
  prefix: string;
  tags: Array<{ key: string; value: string }>;
  sizeGreaterThan?: number;
  sizeLessThan?: number;
  /** the filter was written as <Filter> (else the legacy rule-level <Prefix>) */
  form: 'filter' | 'prefix';
}

export interface LifecycleRule {
  id: string;
  enabled: boolean;
  filter: LifecycleFilter;
  expiration?: { days?: number; date?: number; expiredObjectDeleteMarker?: boolean };
  noncurrentExpiration?: { days: number; newerNoncurrentVersions?: number };
  abortIncompleteDays?: number;
  /** to storage class WALRUS, the one class Tusk transitions to (README "S3 objects on Walrus") */
  transition?: { days?: number; date?: number };
  noncurrentTransition?: { days: number; newerNoncurrentVersions?: number };
}

/** The one storage class a lifecycle Transition may name here. */
export const TRANSITION_CLASS = 'WALRUS';
/** AWS's transition classes (TransitionStorageClass): valid, but Tusk has none of them (501). */
const AWS_TRANSITION_CLASSES = new Set(['GLACIER', 'STANDARD_IA', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'DEEP_ARCHIVE', 'GLACIER_IR']);

export function lifecycleRulesOf(bucket: S3Bucket): LifecycleRule[] | undefined {
  return bucket.versionControl?.lifecycle as LifecycleRule[] | undefined;
}

function invalid(message: string): S3Error {
  return new S3Error('InvalidArgument', {}, { message });
}

function positive(text: string | undefined, what: string, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= (allowZero ? 0 : 1))) throw invalid(`'${what}' must be a positive integer`);
  return n;
}

function nonNegative(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,19}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0) || !Number.isSafeInteger(n)) throw invalid(`'${what}' must be a non-negative integer`);
  return n;
}

function one(node: XmlNode, name: string): XmlNode | undefined {
  const list = xmlChildren(node[name]);
  if (list.length > 1) throw new S3Error('MalformedXML');
  return list[0];
}

function parseTags(list: XmlNode[]): LifecycleFilter['tags'] {
  return list.map((t) => {
    const key = xmlTextOf(t['Key']);
    const value = xmlTextOf(t['Value']) ?? '';
    if (!key) throw new S3Error('MalformedXML');
    return { key, value };
  });
}

function parseFilter(rule: XmlNode): LifecycleFilter {
  const legacy = xmlTextOf(rule['Prefix']);
  const filter = one(rule, 'Filter');
  if (legacy !== undefined && filter) throw new S3Error('MalformedXML');
  if (!filter) return { prefix: legacy ?? '', tags: [], form: 'prefix' };
  const and = one(filter, 'And');
  const direct = ['Prefix', 'Tag', 'ObjectSizeGreaterThan', 'ObjectSizeLessThan'].filter((n) => filter[n] !== undefined);
  // a Filter holds one predicate, or And of several (AWS LifecycleRuleFilter)
  if (direct.length + (and ? 1 : 0) > 1) throw new S3Error('MalformedXML');
  const src = and ?? filter;
  const out: LifecycleFilter = {
    prefix: xmlTextOf(src['Prefix']) ?? '',
    tags: parseTags(xmlChildren(src['Tag'])),
    form: 'filter',
  };
  const gt = nonNegative(xmlTextOf(src['ObjectSizeGreaterThan']), 'ObjectSizeGreaterThan');
  const lt = nonNegative(xmlTextOf(src['ObjectSizeLessThan']), 'ObjectSizeLessThan');
  if (gt !== undefined) out.sizeGreaterThan = gt;
  if (lt !== undefined) out.sizeLessThan = lt;
  if (gt !== undefined && lt !== undefined && lt <= gt) throw invalid('ObjectSizeLessThan must be greater than ObjectSizeGreaterThan');
  return out;
}

/** An ISO 8601 date at midnight UTC (AWS: "The date value must be in ISO 8601 format … at midnight"). */
function parseDate(text: string): number {
  const t = /^\d{4}-\d{2}-\d{2}(T00:00:00(\.0+)?(Z|\+00:00)?)?$/.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : NaN;
  if (Number.isNaN(t) || t % 86_400_000 !== 0) throw invalid("'Date' must be at midnight GMT");
  return t;
}

/**
 * A transition's StorageClass: WALRUS, or one of AWS's (NotImplemented: Tusk has none of them), or
 * anything else, which fails AWS's schema (MalformedXML, as S3 answers an unknown enum value).
 */
function transitionClass(t: XmlNode): void {
  const sc = xmlTextOf(t['StorageClass']);
  if (sc === TRANSITION_CLASS) return;
  if (sc !== undefined && AWS_TRANSITION_CLASSES.has(sc)) {
    throw new S3Error('NotImplemented', {}, { message: `Lifecycle transitions to ${sc} are not implemented: Tusk transitions to ${TRANSITION_CLASS} only` });
  }
  throw new S3Error('MalformedXML');
}

/** Transition and NoncurrentVersionTransition, each at most once per rule (to WALRUS, the one target). */
function parseTransitions(node: XmlNode, rule: LifecycleRule): void {
  const t = one(node, 'Transition');
  const nt = one(node, 'NoncurrentVersionTransition');
  // a malformed transition is the client's error (400) before it is one Tusk does not do (501)
  let days: number | undefined;
  let date: number | undefined;
  if (t) {
    const dateText = xmlTextOf(t['Date']);
    days = positive(xmlTextOf(t['Days']), 'Days', true);
    if (dateText !== undefined) date = parseDate(dateText);
    // Days or Date, exactly one (AWS Transition)
    if ((days === undefined) === (date === undefined)) throw new S3Error('MalformedXML');
  }
  let ncDays: number | undefined;
  let newer: number | undefined;
  if (nt) {
    ncDays = positive(xmlTextOf(nt['NoncurrentDays']), 'NoncurrentDays', true);
    if (ncDays === undefined) throw new S3Error('MalformedXML');
    newer = positive(xmlTextOf(nt['NewerNoncurrentVersions']), 'NewerNoncurrentVersions');
  }
  if (t) transitionClass(t);
  if (nt) transitionClass(nt);
  if (t) rule.transition = days !== undefined ? { days } : { date: date! };
  if (ncDays !== undefined) rule.noncurrentTransition = newer !== undefined ? { days: ncDays, newerNoncurrentVersions: newer } : { days: ncDays };
}

function parseRule(node: XmlNode): LifecycleRule {
  const id = xmlTextOf(node['ID']) ?? '';
  if (id.length > MAX_ID_CHARS) throw invalid('ID length should not exceed allowed limit of 255');
  const status = xmlTextOf(node['Status']);
  if (status !== 'Enabled' && status !== 'Disabled') throw new S3Error('MalformedXML');
  const rule: LifecycleRule = { id, enabled: status === 'Enabled', filter: parseFilter(node) };
  const exp = one(node, 'Expiration');
  if (exp) {
    const days = positive(xmlTextOf(exp['Days']), 'Days');
    const dateText = xmlTextOf(exp['Date']);
    const marker = xmlBooleanOf(exp['ExpiredObjectDeleteMarker']);
    const set = [days !== undefined, dateText !== undefined, marker !== undefined].filter(Boolean).length;
    if (set !== 1) throw new S3Error('MalformedXML');
    if (marker !== undefined && rule.filter.tags.length) {
      throw invalid('ExpiredObjectDeleteMarker cannot be specified with tag-based filter');
    }
    rule.expiration = days !== undefined ? { days } : dateText !== undefined ? { date: parseDate(dateText) } : { expiredObjectDeleteMarker: marker === true };
  }
  const nc = one(node, 'NoncurrentVersionExpiration');
  if (nc) {
    const days = positive(xmlTextOf(nc['NoncurrentDays']), 'NoncurrentDays');
    if (days === undefined) throw new S3Error('MalformedXML');
    const newer = positive(xmlTextOf(nc['NewerNoncurrentVersions']), 'NewerNoncurrentVersions');
    rule.noncurrentExpiration = newer !== undefined ? { days, newerNoncurrentVersions: newer } : { days };
  }
  parseTransitions(node, rule);
  const abort = one(node, 'AbortIncompleteMultipartUpload');
  if (abort) {
    const days = positive(xmlTextOf(abort['DaysAfterInitiation']), 'DaysAfterInitiation');
    if (days === undefined) throw new S3Error('MalformedXML');
    if (rule.filter.tags.length) throw invalid('AbortIncompleteMultipartUpload cannot be specified with Tags.');
    rule.abortIncompleteDays = days;
  }
  if (!rule.expiration && !rule.noncurrentExpiration && rule.abortIncompleteDays === undefined && !rule.transition && !rule.noncurrentTransition) {
    throw invalid('At least one action needs to be specified in a rule');
  }
  return rule;
}

export function parseLifecycle(config: XmlNode): LifecycleRule[] {
  const rules = xmlChildren(config['Rule']).map(parseRule);
  if (rules.length === 0 || rules.length > MAX_RULES) throw new S3Error('MalformedXML');
  const ids = new Set<string>();
  for (const r of rules) {
    if (r.id && ids.has(r.id)) throw invalid('Rule ID must be unique. Found same ID for more than one rule');
    if (r.id) ids.add(r.id);
  }
  // a rule without an ID gets one, as S3 names it (48 characters of base64)
  for (const r of rules) if (!r.id) r.id = randomBytes(36).toString('base64');
  return rules;
}

function filterXml(f: LifecycleFilter): string {
  if (f.form === 'prefix') return el('Prefix', f.prefix);
  const parts: string[] = [];
  if (f.prefix) parts.push(el('Prefix', f.prefix));
  for (const t of f.tags) parts.push(`<Tag>${el('Key', t.key)}${el('Value', t.value)}</Tag>`);
  if (f.sizeGreaterThan !== undefined) parts.push(el('ObjectSizeGreaterThan', f.sizeGreaterThan));
  if (f.sizeLessThan !== undefined) parts.push(el('ObjectSizeLessThan', f.sizeLessThan));
  if (parts.length === 0) return '<Filter></Filter>';
  return parts.length === 1 ? `<Filter>${parts[0]}</Filter>` : `<Filter><And>${parts.join('')}</And></Filter>`;
}

/** GetBucketLifecycleConfiguration's document, element order as AWS's samples. */
export function renderLifecycle(rules: readonly LifecycleRule[]): string {
  let body = '';
  for (const r of rules) {
    body += `<Rule>${r.id ? el('ID', r.id) : ''}${filterXml(r.filter)}${el('Status', r.enabled ? 'Enabled' : 'Disabled')}`;
    const e = r.expiration;
    if (e) {
      const inner = e.days !== undefined ? el('Days', e.days)
        : e.date !== undefined ? el('Date', new Date(e.date).toISOString().replace('.000Z', 'Z'))
          : el('ExpiredObjectDeleteMarker', e.expiredObjectDeleteMarker ? 'true' : 'false');
      body += `<Expiration>${inner}</Expiration>`;
    }
    const t = r.transition;
    if (t) {
      const when = t.days !== undefined ? el('Days', t.days) : el('Date', new Date(t.date!).toISOString().replace('.000Z', 'Z'));
      body += `<Transition>${when}${el('StorageClass', TRANSITION_CLASS)}</Transition>`;
    }
    const nt = r.noncurrentTransition;
    if (nt) {
      body += `<NoncurrentVersionTransition>${el('NoncurrentDays', nt.days)}` +
        `${nt.newerNoncurrentVersions !== undefined ? el('NewerNoncurrentVersions', nt.newerNoncurrentVersions) : ''}${el('StorageClass', TRANSITION_CLASS)}</NoncurrentVersionTransition>`;
    }
    const nc = r.noncurrentExpiration;
    if (nc) {
      body += `<NoncurrentVersionExpiration>${el('NoncurrentDays', nc.days)}` +
        `${nc.newerNoncurrentVersions !== undefined ? el('NewerNoncurrentVersions', nc.newerNoncurrentVersions) : ''}</NoncurrentVersionExpiration>`;
    }
    if (r.abortIncompleteDays !== undefined) {
      body += `<AbortIncompleteMultipartUpload>${el('DaysAfterInitiation', r.abortIncompleteDays)}</AbortIncompleteMultipartUpload>`;
    }
    body += '</Rule>';
  }
  return doc('LifecycleConfiguration', body);
}

/**
 * Tags of a version as object tagging stores them (`attrs.tags`: [key, value] pairs in the order
 * given, issue 10); read defensively, since this branch does not set them itself.
 */
function tagsOf(v: S3Object): Map<string, string> | undefined {
  const tags = (v.attrs as { tags?: unknown }).tags;
  if (!Array.isArray(tags)) return undefined;
  return new Map(tags.filter((t): t is [string, string] => Array.isArray(t) && t.length === 2).map(([k, val]) => [String(k), String(val)]));
}

/** Does the rule's filter select this version (prefix, every tag, size bounds)? */
export function ruleMatches(rule: LifecycleRule, v: S3Object): boolean {
  const f = rule.filter;
  if (!rule.enabled || !v.key.startsWith(f.prefix)) return false;
  if (f.sizeGreaterThan !== undefined && !(v.size > f.sizeGreaterThan)) return false;
  if (f.sizeLessThan !== undefined && !(v.size < f.sizeLessThan)) return false;
  if (f.tags.length) {
    const tags = tagsOf(v);
    if (!tags || f.tags.some((t) => tags.get(t.key) !== t.value)) return false;
  }
  return true;
}

/**
 * When a current version expires under `rule` (ms), or undefined: Days count from creation and
 * round up to the next midnight — of a `dayMs` day (AWS "Lifecycle expiration … rounded").
 */
export function expiresAt(rule: LifecycleRule, v: S3Object, dayMs: number): number | undefined {
  const e = rule.expiration;
  if (!e || !ruleMatches(rule, v)) return undefined;
  if (e.date !== undefined) return e.date;
  if (e.days === undefined) return undefined;
  return Math.ceil((v.lastModified + e.days * dayMs) / dayMs) * dayMs;
}

/** When a current version transitions under `rule` (ms), or undefined: counted as expiration's are. */
export function transitionsAt(rule: LifecycleRule, v: S3Object, dayMs: number): number | undefined {
  const t = rule.transition;
  if (!t || !ruleMatches(rule, v)) return undefined;
  if (t.date !== undefined) return t.date;
  return Math.ceil((v.lastModified + t.days! * dayMs) / dayMs) * dayMs;
}

/** The `x-amz-expiration` value of a current version: the earliest expiry among the rules. */
export function expirationHeader(rules: readonly LifecycleRule[] | undefined, v: S3Object, dayMs: number): string | undefined {
  if (!rules) return undefined;
  let best: { at: number; id: string } | undefined;
  for (const r of rules) {
    const at = expiresAt(r, v, dayMs);
    if (at !== undefined && (!best || at < best.at)) best = { at, id: r.id };
  }
  return best && `expiry-date="${new Date(best.at).toUTCString()}", rule-id="${best.id.replace(/"/g, '%22')}"`;
}
