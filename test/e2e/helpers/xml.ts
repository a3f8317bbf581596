// Minimal readers for the server's XML answers: enough to assert on error bodies and listings
// without pulling an XML parser dependency into the tests.

import { expect } from 'vitest';
import type { RawResponse } from './raw-http.js';

export function unescapeXml(s: string): string {
  return s
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Text of every `<tag>…</tag>` (not nested-aware; fine for leaf elements). */
export function xmlAll(xml: string, tag: string): string[] {
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>|<${tag}(?:\\s[^>]*)?/>`, 'g');
  return [...xml.matchAll(re)].map((m) => unescapeXml(m[1] ?? ''));
}

export function xmlText(xml: string, tag: string): string | undefined {
  return xmlAll(xml, tag)[0];
}

export interface S3ErrorBody {
  code: string | undefined;
  message: string | undefined;
  requestId: string | undefined;
  xml: string;
}

export function parseError(res: RawResponse): S3ErrorBody {
  const xml = res.text();
  return { code: xmlText(xml, 'Code'), message: xmlText(xml, 'Message'), requestId: xmlText(xml, 'RequestId'), xml };
}

/**
 * Asserts an S3 error answer (s3.md §1.9): status, `Code`, a `RequestId` equal to the
 * `x-amz-request-id` header, `application/xml`. HEAD answers carry no body, only the status.
 */
export function expectS3Error(res: RawResponse, status: number, code: string, method = 'GET'): S3ErrorBody {
  const err = parseError(res);
  const where = `${status} ${code}; got ${res.status}: ${err.xml.slice(0, 600)}`;
  expect(res.status, where).toBe(status);
  expect(res.headers['x-amz-request-id'], 'x-amz-request-id header').toMatch(/^[0-9A-F]{16}$/);
  if (method === 'HEAD') {
    expect(res.body.length).toBe(0);
    return err;
  }
  expect(err.code, where).toBe(code);
  expect(res.headers['content-type'], where).toMatch(/^application\/xml/);
  expect(err.requestId, 'RequestId element').toBe(res.headers['x-amz-request-id']);
  expect(err.message, 'Message element').toBeTruthy();
  expect(err.xml, 'Error has no namespace').toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<Error>/);
  return err;
}

export interface VersionEntry {
  kind: 'Version' | 'DeleteMarker';
  key: string;
  versionId: string;
  isLatest: boolean;
}

/** The `<Version>`/`<DeleteMarker>` entries of a ListVersionsResult in document order (s3.md §4.5). */
export function versionEntries(xml: string): VersionEntry[] {
  return [...xml.matchAll(/<(Version|DeleteMarker)>([\s\S]*?)<\/\1>/g)].map((m) => ({
    kind: m[1] as VersionEntry['kind'],
    key: xmlText(m[2]!, 'Key')!,
    versionId: xmlText(m[2]!, 'VersionId')!,
    isLatest: xmlText(m[2]!, 'IsLatest') === 'true',
  }));
}
