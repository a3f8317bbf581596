// The publisher and aggregator's one error table and its one renderer: the AIP-193 JSON shape of
// walrus.md §10.4 (domain daemon.walrus.space). Handlers throw `new PublisherError(code)`; ledger
// errors carry their own status and reason and render through the same function.

import { randomBytes } from 'node:crypto';
import { LedgerError } from '../ledger/index.js';

export const DAEMON_DOMAIN = 'daemon.walrus.space';
/** walrus.md §10.4: internal errors are masked, domain `global`. */
const INTERNAL_DOMAIN = 'global';
const INTERNAL_MESSAGE = 'an internal error has occurred, please report it';

/** code handlers throw (also the ErrorInfo reason) → [HTTP status, AIP-193 status, message, reason if not the code] */
export const PUBLISHER_ERRORS = {
  // The seed puts the endpoint key in the path; walrus.md §10.5 leaves 401/403/404 open: a request
  // without one is unauthenticated, one with a key this publisher does not know is denied.
  MISSING_ENDPOINT_KEY: [401, 'UNAUTHENTICATED', 'publisher routes are under /<endpoint_key>/'],
  INVALID_ENDPOINT_KEY: [403, 'PERMISSION_DENIED', 'the endpoint key is not valid for this publisher'],
  MISSING_AUTHORIZATION: [401, 'UNAUTHENTICATED', 'storing needs an endpoint key in the path or a JWT in Authorization: Bearer'],
  // JWT authentication (walrus.md §10.5; walrus daemon auth.rs PublisherAuthError), domain auth.publisher.walrus.space.
  JWT_INVALID_EXPIRATION: [400, 'FAILED_PRECONDITION', 'the expiration in the query does not match the token', 'INVALID_EXPIRATION'],
  JWT_INVALID_EPOCHS: [400, 'FAILED_PRECONDITION', 'the epochs field in the query does not match the token', 'INVALID_EPOCHS'],
  JWT_INVALID_SIZE: [400, 'FAILED_PRECONDITION', 'the size of the request does not match the size specified in the token', 'INVALID_SIZE'],
  JWT_INVALID_SEND_OBJECT_TO: [400, 'FAILED_PRECONDITION', 'the send_object_to field in the query does not match the token, or is missing', 'INVALID_SEND_OBJECT_TO'],
  JWT_INCONSISTENT_TOKEN: [400, 'FAILED_PRECONDITION', 'the token is inconsistent', 'INCONSISTENT_TOKEN'],
  // 504, as the daemon answers (auth.rs ExpiredSignature: ApiStatusCode::DeadlineExceeded)
  JWT_EXPIRED_SIGNATURE: [504, 'DEADLINE_EXCEEDED', 'the signature on the token has expired', 'EXPIRED_SIGNATURE'],
  JWT_INVALID_SIGNATURE: [401, 'UNAUTHENTICATED', 'the signature on the token is invalid', 'INVALID_SIGNATURE'],
  JWT_INVALID_TOKEN: [400, 'FAILED_PRECONDITION', 'the JWT token is invalid', 'INVALID_TOKEN'],
  JWT_TOKEN_ALREADY_USED: [429, 'RESOURCE_EXHAUSTED', 'the JWT token was already used', 'TOKEN_ALREADY_USED'],
  JWT_INVALID_TIMESTAMP: [400, 'FAILED_PRECONDITION', 'one of the timestamps in the JWT token is invalid', 'INVALID_TIMESTAMP'],
  ROUTE_NOT_FOUND: [404, 'NOT_FOUND', 'no such route'],
  // A known route with another method: the daemon's router (axum) answers 405 with an Allow header
  // and no body, so no AIP status (upstream pairs none with 405): '' renders bodiless.
  METHOD_NOT_ALLOWED: [405, '', 'this route does not take this method'],
  // walrus.md §10.4 "Recommended for Tusk": client mistakes are 4xx JSON, checked before encoding.
  INVALID_EPOCHS: [400, 'INVALID_ARGUMENT', 'epochs must be an integer between 1 and the maximum number of epochs ahead'],
  MALFORMED_REQUEST: [400, 'INVALID_ARGUMENT', 'the query string is malformed'],
  INVALID_BLOB_PERSISTENCE: [400, 'INVALID_ARGUMENT', 'the blob cannot be defined as both deletable and permanent'],
  // SIZE_EXCEEDED goes with 403 in upstream's status table (walrus-storage-node-client api/errors.rs
  // status_codes!), whose client refuses any other pairing, so not HTTP's 413.
  BLOB_TOO_LARGE: [403, 'SIZE_EXCEEDED', 'the blob is larger than this publisher accepts'],
  TOO_MANY_REQUESTS: [429, 'RESOURCE_EXHAUSTED', 'the publisher is receiving too many requests; please try again later'],
  INSUFFICIENT_CONFIRMATIONS: [504, 'DEADLINE_EXCEEDED', 'the service timed-out while waiting for confirmations, please try again'],
  // Aggregator (walrus.md §11).
  INVALID_BLOB_ID: [400, 'INVALID_ARGUMENT', 'a blob id is 43 characters of unpadded base64url (32 bytes)'],
  BLOB_NOT_FOUND: [404, 'NOT_FOUND', 'the requested blob has not been found on any storage node'],
  BLOB_UNAVAILABLE: [503, 'UNAVAILABLE', 'the requested blob cannot be retrieved right now, please try again later'],
  INVALID_BYTE_RANGE: [416, 'RANGE_NOT_SATISFIABLE', 'only one byte range bytes=a-b with both ends, inside the blob, is supported'],
  // The byte-range route's own refusals: 400, same reason (a fourth entry overrides the reason).
  INVALID_BYTE_RANGE_QUERY: [400, 'INVALID_ARGUMENT', 'start and length must be unsigned integers, length above 0 and start inside the blob', 'INVALID_BYTE_RANGE'],
  INVALID_OBJECT_ID: [400, 'INVALID_ARGUMENT', 'an object id is 0x followed by 64 hexadecimal digits'],
  // /v1alpha/blobs/concat (walrus daemon routes.rs ConcatBlobError).
  INVALID_ID_FORMAT: [400, 'INVALID_ARGUMENT', 'an id is a blob id (43 characters of unpadded base64url) or an object id (0x and hexadecimal digits)'],
  OBJECT_ID_RESOLUTION_FAILED: [404, 'NOT_FOUND', 'the object id does not name a Blob object whose blob can be read'],
  // The publisher's wallet running dry is not the client's fault (walrus.md §15, walrus#2114).
  INSUFFICIENT_WAL: [503, 'UNAVAILABLE', 'the publisher wallet does not hold enough WAL to pay for this blob', 'INSUFFICIENT_BALANCE'],
  INSUFFICIENT_GAS: [503, 'UNAVAILABLE', 'the publisher wallet does not hold enough SUI to pay for the transactions of this blob'],
  CHAIN_UNAVAILABLE: [503, 'UNAVAILABLE', 'the Sui network could not be reached, please try again later'],
  // A full disk is the server's condition, not a client mistake, but unlike other internal errors it
  // says what is wrong. RESOURCE_EXHAUSTED ("perhaps the entire file system is out of space",
  // walrus-storage-node-client api/errors.rs) is 429 there: Walrus clients refuse a pair not in that
  // table ("error status and code do not correspond").
  STORAGE_FULL: [429, 'RESOURCE_EXHAUSTED', 'the publisher has no storage space left'],
  // Upload relay (walrus-upload-relay error.rs: a mismatching id is a 400).
  BLOB_ID_MISMATCH: [400, 'INVALID_ARGUMENT', 'the provided blob ID and the blob ID resulting from the blob encoding do not match'],
  BLOB_NOT_REGISTERED: [400, 'FAILED_PRECONDITION', 'the blob must be registered before its slivers are uploaded'],
  // Quilts (walrus daemon routes.rs GetBlobError::QuiltPatchNotFound).
  QUILT_PATCH_NOT_FOUND: [404, 'NOT_FOUND', 'the requested quilt patch does not exist on Walrus'],
  INVALID_QUILT_PATCH_ID: [400, 'INVALID_ARGUMENT', 'a quilt patch id is 50 characters of unpadded base64url (37 bytes, version 1)'],
  // what the HTTP engine refuses before any route sees it (http/listener.ts refusalSummary). Upstream's
  // status table pairs no status with 408, 431 or 501 (its HTTP server, hyper, answers those itself,
  // bodiless), so they go out bodiless too: '' renders no body, as for the 405.
  MALFORMED_HTTP_REQUEST: [400, 'INVALID_ARGUMENT', 'the request cannot be read'],
  REQUEST_TIMEOUT: [408, '', 'the request did not arrive in time'],
  REQUEST_HEAD_TOO_LARGE: [431, '', 'the request head is too large'],
  METHOD_NOT_IMPLEMENTED: [501, '', 'the request asks for something this server does not implement'],
  INTERNAL_ERROR: [500, 'INTERNAL', INTERNAL_MESSAGE],
} as const satisfies Record<string, readonly [number, string, string] | readonly [number, string, string, string]>;

export type PublisherErrorCode = keyof typeof PUBLISHER_ERRORS;

/** walrus daemon auth.rs PUBLISHER_AUTH_DOMAIN: the JWT errors' ErrorInfo domain. */
export const PUBLISHER_AUTH_DOMAIN = 'auth.publisher.walrus.space';

function domainOf(code: PublisherErrorCode): string {
  return code.startsWith('JWT_') ? PUBLISHER_AUTH_DOMAIN : DAEMON_DOMAIN;
}

export class PublisherError extends Error {
  readonly code: PublisherErrorCode;
  /** ErrorInfo metadata (AIP-193: string values) */
  readonly metadata: Record<string, string>;

  constructor(code: PublisherErrorCode, detail?: string, metadata: Record<string, string> = {}) {
    const message = PUBLISHER_ERRORS[code][2];
    super(detail ? `${message}: ${detail}` : message);
    this.name = 'PublisherError';
    this.code = code;
    this.metadata = metadata;
  }

  get httpStatus(): number {
    return PUBLISHER_ERRORS[this.code][0];
  }
}

export interface RenderedError {
  httpStatus: number;
  body: string;
  /** the Allow header of a 405 */
  allow?: string;
  /** set for masked internal errors: the id written to the log next to the real error */
  incidentId?: string;
}

/** The one renderer: any thrown value → status and AIP-193 JSON body. Unknown errors are masked. */
export function renderError(error: unknown): RenderedError {
  if (error instanceof PublisherError && error.code !== 'INTERNAL_ERROR') {
    const entry: readonly [number, string, string, string?] = PUBLISHER_ERRORS[error.code];
    const [httpStatus, status, , reason = error.code] = entry;
    if (status === '') return { httpStatus, body: '', allow: error.metadata.allow };
    return { httpStatus, body: errorJson(httpStatus, status, error.message, reason, domainOf(error.code), error.metadata) };
  }
  if (error instanceof LedgerError && error.info.status !== 'INTERNAL') {
    const { httpStatus, status, reason } = error.info;
    return { httpStatus, body: errorJson(httpStatus, status, error.message, reason, DAEMON_DOMAIN, {}) };
  }
  const incidentId = randomBytes(8).toString('hex');
  const body = JSON.stringify({
    error: {
      code: 500,
      status: 'INTERNAL',
      message: INTERNAL_MESSAGE,
      details: [
        { '@type': 'ErrorInfo', reason: 'INTERNAL_ERROR', domain: INTERNAL_DOMAIN, metadata: {} },
        { '@type': 'DebugInfo', stackEntries: [], detail: `incident ${incidentId}` },
      ],
    },
  });
  return { httpStatus: 500, body, incidentId };
}

function errorJson(code: number, status: string, message: string, reason: string, domain: string, metadata: Record<string, string>): string {
  return JSON.stringify({ error: { code, status, message, details: [{ '@type': 'ErrorInfo', reason, domain, metadata }] } });
}
