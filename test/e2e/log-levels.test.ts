// Log lines carry their severity (issue 30): with `--log-level warn` and the access log off, an
// internal error (here bitrot: a body failing its CRC32C) is an error line with its stack, a full
// disk a warning, and a client's mistake writes nothing; `--access-log off` alone drops the
// per-request lines and keeps the others.

import { afterAll, describe, expect, it } from 'vitest';
import { flipByteOf, markedBody as marked } from './helpers/segments.js';
import { s3Request } from './helpers/clients.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { randomCredentials, startTusk, waitForOutput, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

/** pino's numbers */
const INFO = 30;
const WARN = 40;
const ERROR = 50;

interface Line {
  level: number;
  msg: string;
}

/** The JSON lines a server printed (uWS prints a few plain ones of its own with TLS: none here). */
function jsonLines(server: TuskServer): Line[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

const dirs = makeTempDirFixture();
afterAll(() => dirs.remove());

describe('log levels', () => {
  let server: TuskServer | undefined;
  afterAll(async () => server?.dispose());

  it('at --log-level warn with the access log off: an internal error is an error line with its stack, a client mistake nothing', async () => {
    const dataDir = `${dirs.path}/rot`;
    const small = marked('small', 4000);
    server = await startTusk({ dataDir });
    expect((await s3Request(server, { method: 'PUT', bucket: 'rot' })).status).toBe(200);
    expect((await s3Request(server, { method: 'PUT', bucket: 'rot', key: 'small', body: small })).status).toBe(200);
    const root = server.root;
    await server.stop();
    flipByteOf(dataDir, small.subarray(0, 64), 10);

    server = await startTusk({ dataDir, root, quiet: true, extraArgs: ['--log-level', 'warn', '--access-log', 'off'] });
    const rotten = await s3Request(server, { method: 'GET', bucket: 'rot', key: 'small' });
    expectS3Error(rotten, 500, 'XTuskObjectDamaged');
    const requestId = rotten.headers['x-amz-request-id']!;
    expectS3Error(await s3Request(server, { method: 'GET', bucket: 'rot', key: 'missing' }), 404, 'NoSuchKey');
    const wrongKey = { accessKeyId: root.accessKeyId, secretAccessKey: randomCredentials().secretAccessKey };
    expectS3Error(await s3Request(server, { method: 'GET', bucket: 'rot', credentials: wrongKey }), 403, 'SignatureDoesNotMatch');

    await waitForOutput(server.output, new RegExp(requestId));
    const lines = jsonLines(server);
    const failure = lines.find((l) => l.msg.includes(requestId))!;
    expect(failure.level, failure.msg).toBe(ERROR);
    expect(failure.msg).toMatch(/XTuskObjectDamaged: .*fails its CRC32C/);
    expect(failure.msg, 'the stack').toMatch(/\n\s+at /);
    // nothing below warn: no start-up lines, no access log, and the 404 and 403 left no line
    expect(lines.filter((l) => l.level < WARN), server.output()).toEqual([]);
    expect(lines.filter((l) => l.level >= WARN)).toHaveLength(1);
  });

  it('at --log-level warn: a write refused for a full disk is a warning', async () => {
    const full = await startTusk({ quiet: true, extraArgs: ['--log-level', 'warn', '--access-log', 'off', '--disk-reserve', '1000000GiB'] });
    try {
      expect((await s3Request(full, { method: 'PUT', bucket: 'full' })).status).toBe(200);
      const refused = await s3Request(full, { method: 'PUT', bucket: 'full', key: 'k', body: Buffer.alloc(1000, 1) });
      expectS3Error(refused, 507, 'XTuskStorageFull');
      const requestId = refused.headers['x-amz-request-id']!;
      await waitForOutput(full.output, new RegExp(requestId));
      const line = jsonLines(full).find((l) => l.msg.includes(requestId))!;
      expect(line.level).toBe(WARN);
      expect(line.msg).toMatch(/XTuskStorageFull: .*reserve/);
      expect(jsonLines(full).filter((l) => l.level >= ERROR)).toEqual([]);
    } finally {
      await full.dispose();
    }
  });

  it('--access-log off drops the per-request lines only', async () => {
    const quiet = await startTusk({ extraArgs: ['--access-log', 'off'] });
    try {
      expect((await s3Request(quiet, { method: 'PUT', bucket: 'quiet' })).status).toBe(200);
      expect((await s3Request(quiet, { method: 'GET', bucket: 'quiet' })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100)); // lines go out every 2 ms
      const lines = jsonLines(quiet);
      expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
      expect(lines.some((l) => l.level === INFO && l.msg.startsWith('s3 listening on'))).toBe(true);
    } finally {
      await quiet.dispose();
    }
  });
});
