import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../../../src/publisher/ledger/index.js';
import { LEDGER_ERRORS } from '../../../../src/publisher/ledger/errors.js';
import { PUBLISHER_ERRORS, PublisherError, renderError } from '../../../../src/publisher/service/errors.js';

/** Upstream's StatusCode table (MystenLabs/walrus crates/walrus-storage-node-client/src/api/errors.rs,
 * status_codes!, commit 3c1cacc1): its Deserialize accepts exactly these (status, HTTP code) pairs and
 * rejects any other with "error status (…) and code (…) do not correspond". */
const UPSTREAM_STATUS_CODES: Record<string, number> = {
  OK: 200,
  UNAVAILABLE_FOR_LEGAL_REASONS: 451,
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  FAILED_PRECONDITION: 400,
  PERMISSION_DENIED: 403,
  SIZE_EXCEEDED: 403,
  INTERNAL: 500,
  DEADLINE_EXCEEDED: 504,
  UNAUTHENTICATED: 401,
  RANGE_NOT_SATISFIABLE: 416,
  RESOURCE_EXHAUSTED: 429,
  UNAVAILABLE: 503,
};

describe("every error status/reason pair is one upstream's Status type accepts", () => {
  it.each(Object.entries(PUBLISHER_ERRORS).map(([code, [http, status]]) => [code, http, status] as const))('publisher %s: %d %s', (_code, http, status) => {
    // a bodiless answer has no status to parse: axum's 405, hyper's own 408/431/501
    if (status === '') return expect([405, 408, 431, 501]).toContain(http);
    expect(UPSTREAM_STATUS_CODES[status], `${status} is no upstream status`).toBeDefined();
    expect(http).toBe(UPSTREAM_STATUS_CODES[status]);
  });
  it.each(Object.entries(LEDGER_ERRORS).map(([code, e]) => [code, e.httpStatus, e.status] as const))('ledger %s: %d %s', (_code, http, status) => {
    expect(http).toBe(UPSTREAM_STATUS_CODES[status]);
  });
});

describe('publisher error JSON (walrus.md §10.4)', () => {
  it('renders the AIP-193 shape with domain daemon.walrus.space', () => {
    expect(renderError(new PublisherError('INVALID_BLOB_PERSISTENCE'))).toEqual({
      httpStatus: 400,
      body:
        '{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"the blob cannot be defined as both deletable and permanent",' +
        '"details":[{"@type":"ErrorInfo","reason":"INVALID_BLOB_PERSISTENCE","domain":"daemon.walrus.space","metadata":{}}]}}',
    });
  });

  it('carries the detail in the message and metadata as strings', () => {
    const { httpStatus, body } = renderError(new PublisherError('BLOB_TOO_LARGE', 'the limit is 5 bytes', { maxBodyBytes: '5' }));
    expect(httpStatus).toBe(403);
    expect(body).toBe(
      '{"error":{"code":403,"status":"SIZE_EXCEEDED","message":"the blob is larger than this publisher accepts: the limit is 5 bytes",' +
        '"details":[{"@type":"ErrorInfo","reason":"BLOB_TOO_LARGE","domain":"daemon.walrus.space","metadata":{"maxBodyBytes":"5"}}]}}',
    );
  });

  it.each([
    ['MISSING_ENDPOINT_KEY', 401, 'UNAUTHENTICATED'],
    ['INVALID_ENDPOINT_KEY', 403, 'PERMISSION_DENIED'],
    ['INVALID_EPOCHS', 400, 'INVALID_ARGUMENT'],
    ['MALFORMED_REQUEST', 400, 'INVALID_ARGUMENT'],
    ['TOO_MANY_REQUESTS', 429, 'RESOURCE_EXHAUSTED'],
    ['INSUFFICIENT_CONFIRMATIONS', 504, 'DEADLINE_EXCEEDED'],
    ['BLOB_NOT_FOUND', 404, 'NOT_FOUND'],
    ['BLOB_UNAVAILABLE', 503, 'UNAVAILABLE'],
    ['INVALID_BYTE_RANGE', 416, 'RANGE_NOT_SATISFIABLE'],
  ] as const)('%s → %d %s', (code, status, aip) => {
    const rendered = renderError(new PublisherError(code));
    expect(rendered.httpStatus).toBe(status);
    expect(JSON.parse(rendered.body).error).toMatchObject({ code: status, status: aip, details: [{ reason: code }] });
  });

  it('renders ledger errors with their own status and reason', () => {
    const { httpStatus, body } = renderError(new LedgerError('NoSuchTransaction'));
    expect(httpStatus).toBe(404);
    expect(JSON.parse(body)).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'no ledger transaction has this digest',
        details: [{ '@type': 'ErrorInfo', reason: 'TRANSACTION_NOT_FOUND', domain: 'daemon.walrus.space', metadata: {} }],
      },
    });
  });

  it('masks internal errors: domain global, no detail, an incident id to find the log line', () => {
    const rendered = renderError(new Error('secret path /var/lib/x'));
    expect(rendered.httpStatus).toBe(500);
    expect(rendered.body).not.toContain('secret');
    expect(rendered.incidentId).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.parse(rendered.body)).toEqual({
      error: {
        code: 500,
        status: 'INTERNAL',
        message: 'an internal error has occurred, please report it',
        details: [
          { '@type': 'ErrorInfo', reason: 'INTERNAL_ERROR', domain: 'global', metadata: {} },
          { '@type': 'DebugInfo', stackEntries: [], detail: `incident ${rendered.incidentId}` },
        ],
      },
    });
    expect(renderError(new LedgerError('LedgerCorrupt')).httpStatus).toBe(500);
    expect(renderError(new LedgerError('LedgerCorrupt')).body).not.toContain('integrity');
  });
});
