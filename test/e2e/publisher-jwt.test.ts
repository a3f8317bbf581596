// JWT-authorized stores through a real server (walrus.md §10.5): refusals carry the Walrus daemon's
// own status for each reason (auth.rs PublisherAuthError): an expired token is 504
// DEADLINE_EXCEEDED EXPIRED_SIGNATURE, as on Walrus, not a 401; a forged one 401 UNAUTHENTICATED
// INVALID_SIGNATURE. Nothing refused reaches the ledger.

import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerTransactions, putBlob, type JsonAnswer } from './helpers/publisher-client.js';
import { publisherOf, startTusk, type TuskServer } from './helpers/server.js';

const SECRET = 'a-jwt-secret-of-this-test';
let serial = 0;

function token(secret: string, expInSec: number): Promise<string> {
  return new SignJWT({ jti: `e2e-${++serial}` })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) + expInSec)
    .sign(new TextEncoder().encode(secret));
}

function store(url: string, bearer: string): Promise<JsonAnswer> {
  return putBlob(url, '/v1/blobs', Buffer.from('stored with a JWT'), { headers: { authorization: `Bearer ${bearer}` } });
}

describe('publisher JWT refusals', () => {
  let server: TuskServer;
  let url: string;

  beforeAll(async () => {
    server = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10', '--jwt-decode-secret', SECRET] });
    ({ url } = await publisherOf(server));
  });
  afterAll(async () => server?.dispose());

  it("answer the Walrus daemon's status for each reason, and charge nothing", async () => {
    const before = await ledgerTransactions(url);
    // past jsonwebtoken's 60 s leeway
    const expired = await store(url, await token(SECRET, -120));
    expect(expired.status, expired.text).toBe(504);
    expect(expired.json.error).toMatchObject({
      code: 504,
      status: 'DEADLINE_EXCEEDED',
      details: [{ reason: 'EXPIRED_SIGNATURE', domain: 'auth.publisher.walrus.space' }],
    });
    const forged = await store(url, await token('not-the-secret', 600));
    expect(forged.status, forged.text).toBe(401);
    expect(forged.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', details: [{ reason: 'INVALID_SIGNATURE' }] });
    expect(await ledgerTransactions(url)).toBe(before);

    const good = await store(url, await token(SECRET, 600));
    expect(good.status, good.text).toBe(200);
    expect(good.json.newlyCreated).toBeDefined();
  });
});
