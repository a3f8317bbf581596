// The one storage-node error table (walrus.md §10.4 shape, domain storage.walrus.space). Nodes throw
// `new StorageNodeError(code)`; the HTTP server renders it and the HTTP client turns it back into
// the same typed error, so in-process and remote nodes fail alike.

export const STORAGE_NODE_DOMAIN = 'storage.walrus.space';

/** code (also the ErrorInfo reason) → [HTTP status, AIP-193 status, message]. */
export const NODE_ERROR_TABLE = {
  INVALID_BLOB_ID: [400, 'INVALID_ARGUMENT', 'the blob id must be 43 characters of unpadded base64url'],
  INVALID_PAIR_INDEX: [400, 'INVALID_ARGUMENT', 'the sliver pair index is out of range'],
  INVALID_OBJECT_ID: [400, 'INVALID_ARGUMENT', 'the object id must be 0x followed by 64 hex digits'],
  INVALID_EPOCH: [400, 'INVALID_ARGUMENT', 'the epoch must be an integer in 0..2^32-1'],
  INVALID_METADATA: [400, 'INVALID_ARGUMENT', 'the blob metadata is invalid'],
  INVALID_SLIVER: [400, 'INVALID_ARGUMENT', 'the sliver is invalid'],
  INCOMPLETE_BODY: [400, 'INVALID_ARGUMENT', 'the body is shorter than its Content-Length'],
  CONTENT_LENGTH_REQUIRED: [400, 'INVALID_ARGUMENT', 'the request needs a Content-Length'],
  // walrus.md §12.2: "400 if the shard is not its own".
  SHARD_NOT_ASSIGNED: [400, 'FAILED_PRECONDITION', 'the shard of this sliver pair is not assigned to this node'],
  MISSING_METADATA: [400, 'FAILED_PRECONDITION', 'the metadata of this blob must be stored before its slivers'],
  NOT_FULLY_STORED: [400, 'FAILED_PRECONDITION', 'this node does not yet hold the slivers of all its shards for this blob'],
  METADATA_NOT_FOUND: [404, 'NOT_FOUND', 'this node holds no metadata for the blob'],
  SLIVER_NOT_FOUND: [404, 'NOT_FOUND', 'this node holds no such sliver of the blob'],
  ROUTE_NOT_FOUND: [404, 'NOT_FOUND', 'no such storage-node route'],
  BODY_TOO_LARGE: [413, 'SIZE_EXCEEDED', 'the request body is larger than any valid body for this route'],
  NODE_UNAVAILABLE: [503, 'UNAVAILABLE', 'the storage node could not be reached'],
  // what the HTTP engine refuses before any route sees it (http/listener.ts refusalSummary)
  MALFORMED_HTTP_REQUEST: [400, 'INVALID_ARGUMENT', 'the request cannot be read'],
  REQUEST_TIMEOUT: [408, 'DEADLINE_EXCEEDED', 'the request did not arrive in time'],
  REQUEST_HEAD_TOO_LARGE: [431, 'INVALID_ARGUMENT', 'the request head is too large'],
  METHOD_NOT_IMPLEMENTED: [501, 'UNIMPLEMENTED', 'the request asks for something this server does not implement'],
  INTERNAL_ERROR: [500, 'INTERNAL', 'an internal error has occurred, please report it'],
} as const satisfies Record<string, readonly [number, string, string]>;

export type StorageNodeErrorCode = keyof typeof NODE_ERROR_TABLE;

export class StorageNodeError extends Error {
  readonly code: StorageNodeErrorCode;
  readonly status: number;

  constructor(code: StorageNodeErrorCode, detail?: string) {
    const [status, , message] = NODE_ERROR_TABLE[code];
    super(detail ? `${message}: ${detail}` : message);
    this.name = 'StorageNodeError';
    this.code = code;
    this.status = status;
  }
}

export function isStorageNodeError(e: unknown, code?: StorageNodeErrorCode): e is StorageNodeError {
  return e instanceof StorageNodeError && (code === undefined || e.code === code);
}

/** A request to a node that failed in transport (refused, reset, timed out): NODE_UNAVAILABLE, naming the cause. */
export function unreachable(request: string, e: unknown): StorageNodeError {
  const cause = (e as { cause?: { code?: string } }).cause?.code;
  return new StorageNodeError('NODE_UNAVAILABLE', `${request}: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
}

/** The JSON error body (walrus.md §10.4). Internal errors are masked: domain `global`, no detail. */
export function errorBody(error: StorageNodeError): string {
  const [status, aipStatus, message] = NODE_ERROR_TABLE[error.code];
  const internal = error.code === 'INTERNAL_ERROR';
  return JSON.stringify({
    error: {
      code: status,
      status: aipStatus,
      message: internal ? message : error.message,
      details: [
        { '@type': 'ErrorInfo', reason: error.code, domain: internal ? 'global' : STORAGE_NODE_DOMAIN, metadata: {} },
      ],
    },
  });
}

/** The typed error a node's JSON error body stands for; unknown shapes become NODE_UNAVAILABLE. */
export function errorFromBody(httpStatus: number, body: string): StorageNodeError {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown; details?: Array<{ reason?: unknown }> } };
    const reason = parsed.error?.details?.find((d) => typeof d.reason === 'string')?.reason as string | undefined;
    if (reason && Object.hasOwn(NODE_ERROR_TABLE, reason)) {
      const error = new StorageNodeError(reason as StorageNodeErrorCode);
      if (typeof parsed.error?.message === 'string') error.message = parsed.error.message;
      return error;
    }
  } catch {
    // not JSON: fall through
  }
  return new StorageNodeError('NODE_UNAVAILABLE', `unexpected HTTP ${httpStatus} answer: ${body.slice(0, 200)}`);
}
