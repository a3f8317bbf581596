// CORS configuration and rule matching (s3.md §3.11, §4.10; AWS *Using cross-origin resource
// sharing*): parsing and validation of CORSConfiguration, the first rule matching an origin, a
// method and requested headers, and the response headers that rule yields.

import type { CorsRuleRecord } from './object-attrs.js';
import { S3Error } from './errors/errors.js';
import { doc, el } from './xml.js';
import { parseXmlBody, xmlChildren, xmlTextOf, type XmlNode } from './xml-input.js';

export const MAX_CORS_BODY = 64 * 1024;
const MAX_RULES = 100;
const METHODS = new Set(['GET', 'PUT', 'HEAD', 'POST', 'DELETE']);
export const CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

function texts(rule: XmlNode, name: string): string[] {
  const v = rule[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => {
    const t = xmlTextOf(x);
    if (t === undefined) throw new S3Error('MalformedXML');
    return t;
  });
}

function checkOneWildcard(values: string[]): void {
  for (const v of values) {
    if (v.split('*').length > 2) {
      throw new S3Error('InvalidRequest', {}, { message: `AllowedOrigin/AllowedHeader "${v}" can not have more than one wildcard.` });
    }
  }
}

export function parseCorsConfiguration(xml: string): CorsRuleRecord[] {
  const root = parseXmlBody(xml, 'CORSConfiguration', ['CORSRule', 'AllowedOrigin', 'AllowedMethod', 'AllowedHeader', 'ExposeHeader']);
  const rules = xmlChildren(root['CORSRule']);
  if (rules.length === 0 || rules.length > MAX_RULES) throw new S3Error('MalformedXML');
  return rules.map((r) => {
    const allowedOrigins = texts(r, 'AllowedOrigin');
    const allowedMethods = texts(r, 'AllowedMethod');
    if (allowedOrigins.length === 0 || allowedMethods.length === 0) throw new S3Error('MalformedXML');
    for (const m of allowedMethods) {
      if (!METHODS.has(m)) throw new S3Error('InvalidRequest', {}, { message: `Found unsupported HTTP method in CORS config. Unsupported method is ${m}` });
    }
    const allowedHeaders = texts(r, 'AllowedHeader');
    checkOneWildcard(allowedOrigins);
    checkOneWildcard(allowedHeaders);
    const rule: CorsRuleRecord = { allowedOrigins, allowedMethods, allowedHeaders, exposeHeaders: texts(r, 'ExposeHeader') };
    const id = xmlTextOf(r['ID']);
    if (id !== undefined) rule.id = id;
    const maxAge = xmlTextOf(r['MaxAgeSeconds']);
    if (maxAge !== undefined) {
      if (!/^\d+$/.test(maxAge)) throw new S3Error('MalformedXML');
      rule.maxAgeSeconds = Number(maxAge);
    }
    return rule;
  });
}

export function renderCorsConfiguration(rules: readonly CorsRuleRecord[]): string {
  let body = '';
  for (const r of rules) {
    body += '<CORSRule>';
    if (r.id !== undefined) body += el('ID', r.id);
    for (const h of r.allowedHeaders) body += el('AllowedHeader', h);
    for (const m of r.allowedMethods) body += el('AllowedMethod', m);
    for (const o of r.allowedOrigins) body += el('AllowedOrigin', o);
    for (const h of r.exposeHeaders) body += el('ExposeHeader', h);
    if (r.maxAgeSeconds !== undefined) body += el('MaxAgeSeconds', r.maxAgeSeconds);
    body += '</CORSRule>';
  }
  return doc('CORSConfiguration', body);
}

/** `*` matches any run of characters, once (s3.md §3.11). */
function wildcardMatch(pattern: string, value: string, ignoreCase: boolean): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  const star = p.indexOf('*');
  if (star < 0) return p === v;
  const head = p.slice(0, star);
  const tail = p.slice(star + 1);
  return v.length >= head.length + tail.length && v.startsWith(head) && v.endsWith(tail);
}

/** Whether `rule` allows request header `name` (lower case) by one of its AllowedHeader patterns. */
function allowsHeader(rule: CorsRuleRecord, name: string): boolean {
  return rule.allowedHeaders.some((a) => wildcardMatch(a, name, true));
}

/** The first rule allowing this origin, method and (preflight) requested headers. */
export function matchCorsRule(
  rules: readonly CorsRuleRecord[],
  origin: string,
  method: string,
  requestHeaders: readonly string[] = [],
): CorsRuleRecord | undefined {
  return rules.find(
    (r) =>
      r.allowedOrigins.some((o) => wildcardMatch(o, origin, false)) &&
      r.allowedMethods.includes(method) &&
      requestHeaders.every((h) => allowsHeader(r, h)),
  );
}

/** Response headers for a matched rule; `requestHeaders`: the requested headers it allows, echoed. */
export function corsHeaders(rule: CorsRuleRecord, origin: string, requestHeaders?: string): Array<readonly [string, string]> {
  const anyOrigin = rule.allowedOrigins.includes('*') && rule.allowedOrigins.length === 1;
  const out: Array<readonly [string, string]> = [
    ['Access-Control-Allow-Origin', anyOrigin ? '*' : origin],
    ['Access-Control-Allow-Methods', rule.allowedMethods.join(', ')],
  ];
  if (!anyOrigin) out.push(['Access-Control-Allow-Credentials', 'true']);
  if (requestHeaders) out.push(['Access-Control-Allow-Headers', requestHeaders]);
  if (rule.exposeHeaders.length) out.push(['Access-Control-Expose-Headers', rule.exposeHeaders.join(', ')]);
  if (rule.maxAgeSeconds !== undefined) out.push(['Access-Control-Max-Age', String(rule.maxAgeSeconds)]);
  out.push(['Vary', CORS_VARY]);
  return out;
}

export function splitHeaderList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/**
 * CORS headers for an actual (non-OPTIONS) request with an Origin: the matching rule's headers (with
 * those of its Access-Control-Request-Headers that the rule allows, as S3 echoes them), or only Vary
 * when the bucket has rules but none matches (so that caches keep the answers apart).
 */
export function corsForRequest(
  rules: readonly CorsRuleRecord[] | undefined,
  origin: string,
  method: string,
  requestHeaders?: string,
): Array<readonly [string, string]> | undefined {
  if (!rules) return undefined;
  const rule = matchCorsRule(rules, origin, method);
  if (!rule) return [['Vary', CORS_VARY]];
  const allowed = splitHeaderList(requestHeaders).filter((h) => allowsHeader(rule, h));
  return corsHeaders(rule, origin, allowed.length ? allowed.join(', ') : undefined);
}

/**
 * CORS for the web console's own origins (src/console/origins.ts), on every bucket and on the
 * service: the console signs each request with its user's keys, so answering its origin gives it
 * nothing those keys could not do from aws-cli. Every response header is exposed (it reads ETag,
 * x-amz-version-id, x-amz-meta-*): its requests carry no cookies, where `*` covers them all (Fetch
 * standard, "CORS protocol and credentials"); Authorization is never covered by `*`, so the
 * requested headers are echoed.
 */
export function consoleCorsHeaders(origin: string, requestHeaders?: string): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Allow-Methods', 'GET, PUT, HEAD, POST, DELETE'],
    ['Access-Control-Expose-Headers', '*'],
    ['Access-Control-Max-Age', '600'],
  ];
  const requested = splitHeaderList(requestHeaders);
  if (requested.length) out.push(['Access-Control-Allow-Headers', requested.join(', ')]);
  out.push(['Vary', CORS_VARY]);
  return out;
}
