// JWT authentication of stores, as the Walrus publisher offers it (walrus.md §10.5; walrus daemon
// auth.rs): `Authorization: Bearer <token>`, claims `exp` and `jti` required, `iat`, and the upload
// limits `epochs` | `max_epochs`, `size` | `max_size`, `send_object_to`. A `jti` is good for one
// store (replay cache until `exp`). Tusk takes it alongside endpoint keys: a store under
// /<endpoint_key>/ needs no token, a store at /v1/blobs needs one when a secret is configured.
// HMAC (HS256/384/512) only: the secret is text, or hex when it starts with 0x (as Walrus reads it).

import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { PublisherError } from './errors.js';

export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export interface JwtConfig {
  /** the decoding secret as given (`--jwt-decode-secret`): text, or 0x + hex */
  secret: string;
  /** default HS256, as jsonwebtoken's default Validation */
  algorithm?: JwtAlgorithm;
  /** > 0: `exp − iat` must equal it (`--jwt-expiring-sec`) */
  expiringSec?: number;
  /** check the upload against the claims (`--jwt-verify-upload`) */
  verifyUpload?: boolean;
}

/** What of a store the claims are checked against. */
export interface UploadFacts {
  epochs: number;
  sendObjectTo?: string;
  /** Content-Length when declared, else the body's length once read */
  size?: number;
}

/** jsonwebtoken's default leeway for `exp` (seconds). */
const EXP_LEEWAY_SEC = 60;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const ADDRESS = /^0x[0-9a-fA-F]{64}$/;
/** Bounds the replay cache: past this, expired entries are dropped on insert. */
const REPLAY_SWEEP_AT = 10_000;

interface Claims {
  exp: number;
  jti: string;
  iat?: number;
  epochs?: number;
  maxEpochs?: number;
  size?: number;
  maxSize?: number;
  sendObjectTo?: string;
}

export class JwtAuthenticator {
  private readonly key: Uint8Array;
  private readonly algorithm: JwtAlgorithm;
  /** jti → expiry (ms): a token is spent once it authorized a store */
  private readonly used = new Map<string, number>();

  constructor(private readonly config: JwtConfig) {
    this.key = secretBytes(config.secret);
    this.algorithm = config.algorithm ?? 'HS256';
    if (!JWT_ALGORITHMS.includes(this.algorithm)) throw new RangeError(`jwt algorithm must be one of ${JWT_ALGORITHMS.join(', ')}`);
  }

  /**
   * Verifies the bearer token and spends its `jti`; with verifyUpload, checks `upload` against the
   * claims (a mismatch un-spends the `jti`, as Walrus removes it again). Returns the checks still
   * to run once the body's real length is known.
   */
  async authorize(authorization: string | undefined, upload: UploadFacts, now = Date.now()): Promise<(bodyLength: number) => void> {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined) throw new PublisherError('MISSING_AUTHORIZATION');
    const claims = await this.verify(token, now);
    this.spend(claims, now);
    try {
      this.checkUpload(claims, upload);
    } catch (e) {
      this.used.delete(claims.jti);
      throw e;
    }
    return (bodyLength) => {
      if (this.config.verifyUpload) checkSize(claims, bodyLength);
    };
  }

  private async verify(token: string, now: number): Promise<Claims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: [this.algorithm],
        clockTolerance: EXP_LEEWAY_SEC,
        currentDate: new Date(now),
        requiredClaims: this.config.expiringSec ? ['exp', 'iat'] : ['exp'],
      }));
    } catch (e) {
      throw jwtError(e);
    }
    return claimsOf(payload);
  }

  private spend(claims: Claims, now: number): void {
    if (this.used.size >= REPLAY_SWEEP_AT) {
      for (const [jti, expiry] of this.used) if (expiry < now - EXP_LEEWAY_SEC * 1000) this.used.delete(jti);
    }
    if (this.used.has(claims.jti)) throw new PublisherError('JWT_TOKEN_ALREADY_USED');
    this.used.set(claims.jti, claims.exp * 1000);
  }

  private checkUpload(claims: Claims, upload: UploadFacts): void {
    const { expiringSec = 0 } = this.config;
    if (expiringSec > 0 && claims.exp - (claims.iat ?? 0) !== expiringSec) throw new PublisherError('JWT_INVALID_EXPIRATION');
    if (claims.maxSize !== undefined && claims.size !== undefined) throw new PublisherError('JWT_INCONSISTENT_TOKEN', 'both size and max_size');
    if (!this.config.verifyUpload) return;
    if (upload.size !== undefined) checkSize(claims, upload.size);
    if (claims.epochs !== undefined && claims.maxEpochs !== undefined) throw new PublisherError('JWT_INCONSISTENT_TOKEN', 'both epochs and max_epochs');
    if (claims.epochs !== undefined && upload.epochs !== claims.epochs) throw new PublisherError('JWT_INVALID_EPOCHS', `the token allows ${claims.epochs}`);
    if (claims.maxEpochs !== undefined && upload.epochs > claims.maxEpochs) throw new PublisherError('JWT_INVALID_EPOCHS', `the token allows at most ${claims.maxEpochs}`);
    if (claims.sendObjectTo !== undefined && upload.sendObjectTo !== claims.sendObjectTo) throw new PublisherError('JWT_INVALID_SEND_OBJECT_TO');
  }
}

function checkSize(claims: Claims, size: number): void {
  if (claims.maxSize !== undefined && size > claims.maxSize) throw new PublisherError('JWT_INVALID_SIZE', `${size} bytes, the token allows at most ${claims.maxSize}`);
  if (claims.size !== undefined && size !== claims.size) throw new PublisherError('JWT_INVALID_SIZE', `${size} bytes, the token is for ${claims.size}`);
}

/** auth.rs `from_token_data_result`: jsonwebtoken's error kinds → the daemon's reasons. */
function jwtError(e: unknown): PublisherError {
  if (e instanceof joseErrors.JWTExpired) return new PublisherError('JWT_EXPIRED_SIGNATURE');
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JOSEAlgNotAllowed) {
    return new PublisherError('JWT_INVALID_SIGNATURE', (e as Error).message);
  }
  // Malformed tokens, bad JSON, missing or ill-typed claims (jsonwebtoken: InvalidToken, Json, Base64,
  // MissingRequiredClaim; the last is a 500 on Walrus, a client mistake here).
  if (e instanceof joseErrors.JOSEError) return new PublisherError('JWT_INVALID_TOKEN', (e as Error).message);
  throw e;
}

function claimsOf(p: JWTPayload): Claims {
  const integer = (name: string, max: number): number | undefined => {
    const v = p[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) throw new PublisherError('JWT_INVALID_TOKEN', `claim ${name} must be an integer in 0..${max}`);
    return v;
  };
  if (typeof p.jti !== 'string') throw new PublisherError('JWT_INVALID_TOKEN', 'claim jti is required');
  if (typeof p.exp !== 'number' || !Number.isSafeInteger(p.exp)) throw new PublisherError('JWT_INVALID_TIMESTAMP');
  const sendObjectTo = p.send_object_to;
  if (sendObjectTo !== undefined && (typeof sendObjectTo !== 'string' || !ADDRESS.test(sendObjectTo))) {
    throw new PublisherError('JWT_INVALID_TOKEN', 'claim send_object_to must be 0x followed by 64 hexadecimal digits');
  }
  return {
    exp: p.exp,
    jti: p.jti,
    iat: typeof p.iat === 'number' ? p.iat : undefined,
    epochs: integer('epochs', 0xffff_ffff),
    maxEpochs: integer('max_epochs', 0xffff_ffff),
    size: integer('size', Number.MAX_SAFE_INTEGER),
    maxSize: integer('max_size', Number.MAX_SAFE_INTEGER),
    sendObjectTo: sendObjectTo?.toLowerCase(),
  };
}

/** walrus client config.rs `secret_to_bytes`: 0x + an even number of hex digits, else the text's bytes. */
export function secretBytes(secret: string): Uint8Array {
  if (!secret.startsWith('0x')) return new TextEncoder().encode(secret);
  const hex = secret.slice(2);
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new RangeError('a 0x JWT secret must be an even number of hexadecimal digits');
  return Buffer.from(hex, 'hex');
}
