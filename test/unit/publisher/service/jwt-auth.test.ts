// JWT authentication of stores (walrus.md §10.5; walrus daemon auth.rs), through a running publisher.
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { secretBytes } from '../../../../src/publisher/service/jwt-auth.js';
import { KEY, startFixture, type PublisherFixture } from './publisher-fixture.js';

let fx: PublisherFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const SECRET = 'a-publisher-jwt-secret-for-tests';
const BLOB = Buffer.from('stored with a JWT, not an endpoint key');
const ADDRESS = `0x${'7e'.repeat(32)}`;
let serial = 0;

async function token(claims: Record<string, unknown> = {}, options: { secret?: string; alg?: string; expInSec?: number } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ jti: `jti-${++serial}-${Math.random()}`, ...claims }).setProtectedHeader({ alg: options.alg ?? 'HS256' });
  if (!('exp' in claims)) jwt.setExpirationTime(now + (options.expInSec ?? 600));
  return jwt.sign(secretBytes(options.secret ?? SECRET));
}

async function store(bearer: string | undefined, query = '', body: Buffer = BLOB): Promise<{ status: number; reason?: string; domain?: string; json: any }> {
  const headers: Record<string, string> = bearer === undefined ? {} : { authorization: `Bearer ${bearer}` };
  const res = await fetch(`${fx!.url}/v1/blobs${query ? `?${query}` : ''}`, { method: 'PUT', body, headers });
  const json = (await res.json()) as any;
  return { status: res.status, reason: json.error?.details[0].reason, domain: json.error?.details[0].domain, json };
}

describe('JWT authentication (walrus.md §10.5)', () => {
  it('stores at /v1/blobs with a valid token, once per jti; endpoint keys keep working', async () => {
    fx = await startFixture({ jwt: { secret: SECRET } });
    const t = await token();
    const first = await store(t);
    expect(first.status).toBe(200);
    expect(first.json.newlyCreated.blobObject.size).toBe(BLOB.length);
    expect(await store(t)).toMatchObject({ status: 429, reason: 'TOKEN_ALREADY_USED', domain: 'auth.publisher.walrus.space' });
    expect((await fx.put('', BLOB)).status).toBe(200);
    expect((await fx.put('', BLOB, { path: '/v1/blobs', headers: {} })).status).toBe(401);
    expect(KEY).toBeTruthy();
  });

  it('refuses missing, forged, expired and malformed tokens with the daemon reasons', async () => {
    fx = await startFixture({ jwt: { secret: `0x${Buffer.from(SECRET).toString('hex')}` } });
    const before = fx.transactions();
    expect(await store(undefined)).toMatchObject({ status: 401, reason: 'MISSING_AUTHORIZATION' });
    expect(await store(await token({}, { secret: 'another-secret' }))).toMatchObject({ status: 401, reason: 'INVALID_SIGNATURE' });
    expect(await store(await token({}, { alg: 'HS512' }))).toMatchObject({ status: 401, reason: 'INVALID_SIGNATURE' });
    expect(await store(await token({}, { expInSec: -120 }))).toMatchObject({ status: 504, reason: 'EXPIRED_SIGNATURE' });
    expect(await store('not.a.jwt')).toMatchObject({ status: 400, reason: 'INVALID_TOKEN' });
    const noJti = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(Buffer.from(SECRET));
    expect(await store(noJti)).toMatchObject({ status: 400, reason: 'INVALID_TOKEN' });
    const noExp = await new SignJWT({ jti: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from(SECRET));
    expect(await store(noExp)).toMatchObject({ status: 400, reason: 'INVALID_TOKEN' });
    expect(fx.transactions()).toBe(before); // nothing refused reached the ledger
    // jsonwebtoken's 60 s leeway: 30 s past exp still passes (120 s did not, above).
    expect((await store(await token({}, { expInSec: -30 }))).status).toBe(200);
  });

  it('with verify-upload, checks epochs, size and send_object_to against the claims', async () => {
    fx = await startFixture({ jwt: { secret: SECRET, verifyUpload: true } });
    expect(await store(await token({ epochs: 2 }), 'epochs=1')).toMatchObject({ status: 400, reason: 'INVALID_EPOCHS', domain: 'auth.publisher.walrus.space' });
    expect((await store(await token({ epochs: 2 }), 'epochs=2')).status).toBe(200);
    expect(await store(await token({ max_epochs: 2 }), 'epochs=3')).toMatchObject({ status: 400, reason: 'INVALID_EPOCHS' });
    expect(await store(await token({ epochs: 2, max_epochs: 3 }), 'epochs=2')).toMatchObject({ status: 400, reason: 'INCONSISTENT_TOKEN' });
    expect(await store(await token({ size: BLOB.length + 1 }))).toMatchObject({ status: 400, reason: 'INVALID_SIZE' });
    expect(await store(await token({ max_size: BLOB.length - 1 }))).toMatchObject({ status: 400, reason: 'INVALID_SIZE' });
    expect((await store(await token({ size: BLOB.length }))).status).toBe(200);
    expect(await store(await token({ send_object_to: ADDRESS }))).toMatchObject({ status: 400, reason: 'INVALID_SEND_OBJECT_TO' });
    const sent = await store(await token({ send_object_to: ADDRESS }), `send_object_to=${ADDRESS}`);
    expect(sent.status).toBe(200);
    // A refused upload does not spend its jti: the same token works for a matching request.
    const t = await token({ epochs: 3 });
    expect((await store(t, 'epochs=1')).status).toBe(400);
    expect((await store(t, 'epochs=3')).status).toBe(200);
  });

  it('with expiring-sec, exp − iat must equal it', async () => {
    fx = await startFixture({ jwt: { secret: SECRET, expiringSec: 300 } });
    const now = Math.floor(Date.now() / 1000);
    expect((await store(await token({ iat: now, exp: now + 300 }))).status).toBe(200);
    expect(await store(await token({ iat: now, exp: now + 600 }))).toMatchObject({ status: 400, reason: 'INVALID_EXPIRATION' });
    expect(await store(await token({ exp: now + 300 }))).toMatchObject({ status: 400, reason: 'INVALID_TOKEN' });
  });
});
