// What the website endpoint decides before and after it reads an object, as pure functions: which
// bucket a Host names, which key a path asks for, which routing rule applies, where a redirect
// points, and S3's HTML error page (AWS *Hosting a static website using Amazon S3*: *Website
// endpoints*, *Configuring an index document*, *Configuring redirection rules*, *Configuring a
// custom error document*).

import { percentDecode } from '../http/query.js';
import type { WebsiteConfiguration, WebsiteRedirect, WebsiteRoutingRule } from './website.js';

/** The host part of a Host header, lower-case, without port or trailing dot. */
function hostNameOf(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) h = h.slice(0, h.indexOf(']') + 1);
  else if (h.includes(':')) h = h.slice(0, h.lastIndexOf(':'));
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * The bucket a website request is for: `<bucket>.<domain>` for a website domain, else the whole
 * host name, as a CNAME to an S3 website endpoint has it (AWS *Website endpoints*: the bucket is
 * named after the host, e.g. www.example.com).
 */
export function websiteBucketOf(host: string | undefined, domains: readonly string[]): string | undefined {
  if (!host) return undefined;
  const h = hostNameOf(host);
  const domain = domains.find((d) => h.endsWith(`.${d}`));
  const bucket = domain ? h.slice(0, h.length - domain.length - 1) : h;
  return bucket || undefined;
}

/** The key a path asks for, before the index document is added ('' for the root); undefined when it does not decode. */
export function websiteKeyOf(rawPath: string): string | undefined {
  if (!rawPath.startsWith('/')) return undefined;
  return percentDecode(rawPath.slice(1), false);
}

/** The object that answers `key`: the index document for the root and for any key ending in '/'. */
export function documentKeyOf(key: string, indexDocument: string): string {
  return key === '' || key.endsWith('/') ? key + indexDocument : key;
}

/**
 * The first rule that applies to `key` (the requested key, before the index document) and, after
 * the object was read, to the error status it got. Before the read (`status` undefined) only rules
 * without an error-code condition apply; after it, only those with one (a rule with both needs
 * both). AWS evaluates the rules in order and takes the first match.
 */
export function matchRoutingRule(rules: readonly WebsiteRoutingRule[] | undefined, key: string, status?: number): WebsiteRoutingRule | undefined {
  return rules?.find(({ condition: c }) => {
    if (c?.keyPrefixEquals !== undefined && !key.startsWith(c.keyPrefixEquals)) return false;
    const code = c?.httpErrorCodeReturnedEquals;
    return status === undefined ? code === undefined : code === String(status);
  });
}

/** A path for a Location: each segment percent-encoded, slashes kept. */
function encodePath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export interface RequestOrigin {
  protocol: 'http' | 'https';
  /** the Host header as sent */
  host: string;
}

export interface WebsiteRedirectAnswer {
  status: number;
  location: string;
}

/**
 * Where a routing rule's redirect sends `key`: its protocol and host name, or the request's own;
 * ReplaceKeyWith the whole key, ReplaceKeyPrefixWith the rule's KeyPrefixEquals (empty without
 * one); 301 unless HttpRedirectCode says otherwise (AWS *RoutingRule*, *Redirect*).
 */
export function ruleRedirect(rule: WebsiteRoutingRule, key: string, origin: RequestOrigin): WebsiteRedirectAnswer {
  const r: WebsiteRedirect = rule.redirect;
  let target = key;
  if (r.replaceKeyWith !== undefined) target = r.replaceKeyWith;
  else if (r.replaceKeyPrefixWith !== undefined) {
    const prefix = rule.condition?.keyPrefixEquals ?? '';
    target = r.replaceKeyPrefixWith + key.slice(prefix.length);
  }
  const location = `${r.protocol ?? origin.protocol}://${r.hostName ?? origin.host}/${encodePath(target)}`;
  return { status: Number(r.httpRedirectCode ?? 301), location };
}

/** RedirectAllRequestsTo: 301 to the same path on its host, with its protocol or the request's. */
export function redirectAll(to: NonNullable<WebsiteConfiguration['redirectAllRequestsTo']>, key: string, origin: RequestOrigin): WebsiteRedirectAnswer {
  return { status: 301, location: `${to.protocol ?? origin.protocol}://${to.hostName}/${encodePath(key)}` };
}

/** `dir` → `dir/` when `dir/<index>` exists: S3 answers 302 Found (AWS *Configuring an index document*). */
export function folderRedirect(key: string, origin: RequestOrigin): WebsiteRedirectAnswer {
  return { status: 302, location: `${origin.protocol}://${origin.host}/${encodePath(key)}/` };
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface WebsiteErrorItem {
  code: string;
  message: string;
  /** more `<li>` lines in S3's order after the message, e.g. Key, BucketName */
  details?: ReadonlyArray<readonly [string, string]>;
}

/**
 * S3's HTML error page of the website endpoint: status line as title and heading, then Code,
 * Message, details, RequestId and HostId; `documentError` adds the section S3 shows when the
 * custom error document could not be read either.
 */
export function websiteErrorPage(statusLine: string, e: WebsiteErrorItem, ids: { requestId: string; hostId: string }, documentError?: WebsiteErrorItem): string {
  const li = (name: string, value: string): string => `<li>${name}: ${escapeHtml(value)}</li>\n`;
  const items = (x: WebsiteErrorItem): string =>
    li('Code', x.code) + li('Message', x.message) + (x.details ?? []).map(([n, v]) => li(n, v)).join('');
  let html = `<html>\n<head><title>${statusLine}</title></head>\n<body>\n<h1>${statusLine}</h1>\n<ul>\n`;
  html += items(e) + li('RequestId', ids.requestId) + li('HostId', ids.hostId) + '</ul>\n';
  if (documentError) {
    html += '<h3>An Error Occurred While Attempting to Retrieve a Custom Error Document</h3>\n<ul>\n' + items(documentError) + '</ul>\n';
  }
  return html + '<hr/>\n</body>\n</html>\n';
}
