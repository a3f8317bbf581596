// S3's long-running Complete (AWS CompleteMultipartUpload doc): quick work answers normally; slow
// work gets a 200 with the XML declaration, whitespace while it runs, then the result or the error
// in the same body.

import { describe, expect, it } from 'vitest';
import type { S3Context } from '../../../src/s3/context.js';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { answerWithKeepAlive } from '../../../src/s3/long-running.js';
import { doc, el } from '../../../src/s3/xml.js';

interface Seen {
  sent?: { status: number; body: string };
  chunked?: { status: number; writes: string[]; end?: string };
}

function fakeContext(): { ctx: S3Context; seen: Seen } {
  const seen: Seen = {};
  const ex = {
    head: { method: 'POST' },
    send(status: number, _headers: unknown, body?: string) {
      seen.sent = { status, body: String(body) };
    },
    beginChunked(status: number) {
      const c = { status, writes: [] as string[], end: undefined as string | undefined };
      seen.chunked = c;
      return { write: (d: string) => c.writes.push(d), end: (d: string) => (c.end = d) };
    },
  };
  const ctx = {
    ex, head: ex.head, requestId: 'REQ', hostId: 'HOST', resource: { style: 'path', bucket: 'b', key: 'k' },
    services: { config: { serverHeader: 'Tusk/1.0.0' } },
  } as unknown as S3Context;
  return { ctx, seen };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RESULT = doc('CompleteMultipartUploadResult', el('Key', 'k'));

describe('answerWithKeepAlive', () => {
  it('answers quick work with a plain 200', async () => {
    const { ctx, seen } = fakeContext();
    await answerWithKeepAlive(ctx, async () => ({ headers: [], xml: RESULT }), { after: 1000, every: 1000 });
    expect(seen.sent).toEqual({ status: 200, body: RESULT });
    expect(seen.chunked).toBeUndefined();
  });

  it('rethrows a quick failure for the normal error answer', async () => {
    const { ctx } = fakeContext();
    await expect(answerWithKeepAlive(ctx, async () => { throw new S3Error('InvalidPart'); }, { after: 1000, every: 1000 })).rejects.toThrow(S3Error);
  });

  it('keeps slow work alive with whitespace, then sends the result in the same 200', async () => {
    const { ctx, seen } = fakeContext();
    await answerWithKeepAlive(ctx, async () => {
      await sleep(120);
      return { headers: [], xml: RESULT };
    }, { after: 20, every: 20 });
    expect(seen.sent).toBeUndefined();
    expect(seen.chunked!.status).toBe(200);
    expect(seen.chunked!.writes[0]).toBe('<?xml version="1.0" encoding="UTF-8"?>\n');
    expect(seen.chunked!.writes.length).toBeGreaterThan(2);
    expect(seen.chunked!.writes.slice(1).every((w) => w === ' ')).toBe(true);
    expect(seen.chunked!.writes[0] + seen.chunked!.end).toBe(RESULT);
  });

  it('puts an error that comes after the 200 into the body', async () => {
    const { ctx, seen } = fakeContext();
    await answerWithKeepAlive(ctx, async () => {
      await sleep(80);
      throw new S3Error('NoSuchUpload', { UploadId: 'U' });
    }, { after: 20, every: 20 });
    expect(seen.chunked!.end).toMatch(/^<Error><Code>NoSuchUpload<\/Code><Message>.*<\/Message><UploadId>U<\/UploadId><RequestId>REQ<\/RequestId><HostId>HOST<\/HostId><\/Error>$/);
  });
});
