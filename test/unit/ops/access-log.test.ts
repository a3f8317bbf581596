// The S3 access-log line is built by hand for speed: it must be the line pino writes for the same record.

import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { s3AccessFields, s3AccessLine, s3AccessRecorder, type S3AccessRecord } from '../../../src/ops/access-log.js';
import { BatchedFdDestination } from '../../../src/log/log-destination.js';
import { isoTimeField, jsonLogger } from '../../../src/log/logger.js';

function record(over: Partial<S3AccessRecord['summary']> = {}, rest: Partial<Omit<S3AccessRecord, 'summary'>> = {}): S3AccessRecord {
  return {
    summary: { requestId: '18B2C3D4E5F60718', operation: 'GetObject', bucket: 'b1', key: 'a/b.txt', accessKeyId: 'AKIDEXAMPLE', ...over },
    method: 'GET',
    status: 200,
    bytesIn: 0,
    bytesOut: 4096,
    durationMs: 0.123456,
    aborted: false,
    time: Date.parse('2026-11-27T01:02:03.004Z'),
    ...rest,
  };
}

/** What pino itself writes for the record, through a child logger as the fallback path logs it. */
function pinoLine(r: S3AccessRecord): string {
  const lines: string[] = [];
  const logger = pino({ level: 'info', base: { pid: process.pid }, timestamp: isoTimeField }, { write: (l: string) => lines.push(l) });
  logger.child({ face: 's3' }).info(s3AccessFields(r), 'request');
  return lines[0];
}

describe('s3AccessLine', () => {
  afterEach(() => vi.useRealTimers());

  const cases: Array<[string, S3AccessRecord]> = [
    ['every field', record({ errorCode: 'NoSuchKey' }, { status: 404, aborted: true, bytesIn: 17 })],
    ['no bucket, key, key id or error', record({ bucket: undefined, key: undefined, accessKeyId: undefined, operation: 'ListBuckets' })],
    ['a key that needs escaping', record({ key: 'q"uo\\te\n\ttab\u0001 ünï €' })],
    ['a client that closed', record({}, { status: 499, aborted: true, durationMs: 1234.5678 })],
    ['no status yet', record({}, { status: 0, durationMs: 0 })],
  ];
  it.each(cases)('is byte for byte the line pino writes: %s', (_name, r) => {
    vi.useFakeTimers({ now: r.time, toFake: ['Date'] }); // pino takes the time when it logs
    const line = s3AccessLine(r);
    expect(line).toBe(pinoLine(r));
    expect(JSON.parse(line)).toMatchObject({ level: 30, face: 's3', msg: 'request', reqId: r.summary.requestId, status: r.status });
  });
});

describe('s3AccessRecorder', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true });
    dir = undefined;
  });

  it("writes hand-built lines to a JSON logger's destination, and none below its level", () => {
    dir = mkdtempSync(join(tmpdir(), 'tusk-access-'));
    const fd = openSync(join(dir, 'log'), 'w');
    try {
      const destination = new BatchedFdDestination(fd);
      const recordInfo = s3AccessRecorder(jsonLogger('info', destination), undefined);
      const recordWarn = s3AccessRecorder(jsonLogger('warn', destination), undefined);
      expect(recordWarn).toBeUndefined(); // nothing to log, nothing to count
      recordInfo!(record({ key: 'one' }));
      recordInfo!(record({ key: 'two' }, { status: 404 }));
      destination.flushSync();
    } finally {
      closeSync(fd);
    }
    const lines = readFileSync(join(dir, 'log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.key, l.status, l.face, l.msg])).toEqual([
      ['one', 200, 's3', 'request'],
      ['two', 404, 's3', 'request'],
    ]);
  });
});
