// A busy port is a start-up error (issue 8, defect 2): uWS listens with SO_REUSEPORT unless told
// otherwise, and a second server on a port in use used to say "listening" and take part of the
// first one's traffic. Every listener (S3, publisher, storage node) must refuse and exit non-zero.

import { freePort } from '../../src/http/listener.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTuskToExit } from './helpers/child-process.js';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';

const dirs = makeTempDirFixture();
let first: TuskServer;

// The first server must listen on a fixed port: an ephemeral port from `:0` is never shared by
// SO_REUSEPORT, a chosen one is (the case of two `npm start`s).
beforeAll(async () => {
  first = await startTusk({ extraArgs: ['--listen', `127.0.0.1:${await freePort('127.0.0.1')}`] });
});
afterAll(async () => {
  await first.dispose();
  dirs.remove();
});

function expectAddressInUse(result: { status: number | null; output: string }, port: number): void {
  expect(result.status, result.output).toBe(1);
  expect(result.output).toContain(`cannot listen on 127.0.0.1:${port}: address already in use`);
  expect(result.output).not.toMatch(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}\\b`));
}

describe('a port in use', () => {
  it('stops a second S3 listener with a clear error, and the first keeps its port', async () => {
    const second = runTuskToExit(['serve', '--listen', `127.0.0.1:${first.port}`, '--publisher-listen', 'off', '--console-listen', 'off', '--data-dir', `${dirs.path}/s3`]);
    expectAddressInUse(second, first.port);
    expect(first.alive()).toBe(true);
    const res = await fetch(`${first.endpoint}/`);
    expect(res.status).toBe(403);
    expect(res.headers.get('server')).toMatch(/^Tusk\//);
  });

  it('stops a publisher listener on a busy port', () => {
    const second = runTuskToExit(['serve', '--listen', '127.0.0.1:0', '--publisher-listen', `127.0.0.1:${first.port}`, '--console-listen', 'off', '--n-shards', '10', '--data-dir', `${dirs.path}/pub`]);
    expectAddressInUse(second, first.port);
  });

  it('stops a storage node on a busy port', () => {
    const second = runTuskToExit(['storage-node', '--listen', `127.0.0.1:${first.port}`, '--data-dir', `${dirs.path}/node`, '--shards', '0-3', '--n-shards', '4']);
    expectAddressInUse(second, first.port);
  });
});
