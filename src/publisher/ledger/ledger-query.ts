// Look-ups a user can make on the ledger, shared by `GET /v1/ledger/...` and `tusk ledger ...`:
// both parse into one LedgerQuery, and one function answers it with plain JSON.

import type { JsonValue } from './canonical-json.js';
import { LedgerError } from './errors.js';
import type { Ledger } from './ledger.js';

export type LedgerQuery =
  | { kind: 'transaction'; digest: string }
  | { kind: 'event'; digest: string; eventSeq: string }
  | { kind: 'object'; id: string }
  | { kind: 'blob'; blobId: string }
  | { kind: 'expired' }
  | { kind: 'status' }
  | { kind: 'verify' };

/** word of the CLI, path segment of the HTTP route, number of arguments */
const QUERY_NAMES: Record<LedgerQuery['kind'], { cli: string; route: string; args: number }> = {
  transaction: { cli: 'tx', route: 'transactions', args: 1 },
  event: { cli: 'event', route: 'events', args: 2 },
  object: { cli: 'object', route: 'objects', args: 1 },
  blob: { cli: 'blob', route: 'blobs', args: 1 },
  expired: { cli: 'expired', route: 'expired', args: 0 },
  status: { cli: 'status', route: 'status', args: 0 },
  verify: { cli: 'verify', route: 'verify', args: 0 },
};

export const LEDGER_ROUTES = Object.values(QUERY_NAMES).map(({ route, args }) => [route, ...['{digest}', '{eventSeq}'].slice(0, args)].join('/'));

/** `tx <digest>`, `event <digest> <seq>`, `object <id>`, `blob <blobId>`, `expired`, `status`, `verify`. */
export function parseLedgerArgs(argv: string[]): LedgerQuery | undefined {
  return queryOf(argv, 'cli');
}

/**
 * The part of the path after `/v1/ledger/`: `transactions/{digest}`, `events/{digest}/{eventSeq}`,
 * `objects/{id}`, `blobs/{blobId}`, `expired`, `status`, `verify`. Undefined when nothing matches.
 */
export function parseLedgerRoute(rest: string): LedgerQuery | undefined {
  try {
    return queryOf(rest.split('/').filter((s) => s !== '').map(decodeURIComponent), 'route');
  } catch {
    return undefined; // malformed percent-encoding
  }
}

/** Answers a query as JSON (FROST amounts as decimal strings); a missing item throws a NOT_FOUND LedgerError. */
export async function runLedgerQuery(ledger: Ledger, query: LedgerQuery): Promise<JsonValue> {
  switch (query.kind) {
    case 'transaction':
      return json(found(ledger.getTransaction(query.digest), 'NoSuchTransaction', { txDigest: query.digest }));
    case 'event':
      return json(found(ledger.getEvent(query.digest, query.eventSeq), 'NoSuchEvent', { txDigest: query.digest, eventSeq: query.eventSeq }));
    case 'object':
      return json(found(ledger.getObject(query.id), 'NoSuchObject', { objectId: query.id }));
    case 'blob': {
      const objects = ledger.blobsById(query.blobId);
      if (objects.length === 0) throw new LedgerError('NoSuchObject', { blobId: query.blobId }, 'no Blob object has this blob id');
      return json({ blobId: query.blobId, objects });
    }
    case 'expired':
      return json({ epoch: ledger.currentEpoch(), blobs: ledger.expiredBlobs() });
    case 'status':
      return json(ledger.status());
    case 'verify':
      return json(await ledger.verifyChain());
  }
}

function queryOf(words: string[], face: 'cli' | 'route'): LedgerQuery | undefined {
  const [name, ...args] = words;
  const entry = Object.entries(QUERY_NAMES).find(([, names]) => names[face] === name);
  if (entry === undefined || args.length !== entry[1].args) return undefined;
  const kind = entry[0] as LedgerQuery['kind'];
  switch (kind) {
    case 'transaction':
      return { kind, digest: args[0]! };
    case 'event':
      return { kind, digest: args[0]!, eventSeq: args[1]! };
    case 'object':
      return { kind, id: args[0]! };
    case 'blob':
      return { kind, blobId: args[0]! };
    default:
      return { kind };
  }
}

function found<T>(value: T | undefined, code: 'NoSuchTransaction' | 'NoSuchEvent' | 'NoSuchObject', details: Record<string, unknown>): T {
  if (value === undefined) throw new LedgerError(code, details);
  return value;
}

/** Round-trips through JSON so the answer is plain data (bigint → decimal string). */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))) as JsonValue;
}
