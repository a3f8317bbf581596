// The aggregator's query parameters (walrus.md §11): the consistency-check switches of blob reads,
// and `start`/`length` of the byte-range route. Unknown parameters are refused, as the daemon's
// `ReadOptions` and `ByteRangeQueryParams` declare `deny_unknown_fields` (walrus daemon routes.rs).

import type { ConsistencyCheck } from '../rs2/rs2-native.js';
import { PublisherError } from './errors.js';
import { parseBool, refuseUnknown, splitQuery } from './query-params.js';

/** Decimal digits only, at most 2^53 − 1 so the sum of start and length stays exact. */
const U53_PATTERN = /^[0-9]{1,16}$/;

/**
 * The consistency check a blob read asks for (walrus.md §11): Walrus's default (each systematic
 * primary sliver of the rebuilt blob against its hash), or `strict_consistency_check=true` (the
 * whole blob re-encoded and its id compared). `skip_consistency_check=true` gets the default check:
 * Walrus skips it because its client has verified every sliver it fetched, which costs Tusk as much
 * as the default check does, and Tusk never answers bytes it has not verified. Both switches
 * together contradict each other.
 */
export function parseReadQuery(rawQuery: string): ConsistencyCheck {
  const params = splitQuery(rawQuery);
  refuseUnknown(params, READ_PARAMETERS);
  return consistencyCheck(params);
}

const READ_PARAMETERS: ReadonlySet<string> = new Set(['strict_consistency_check', 'skip_consistency_check']);
/** walrus daemon `ConcatQueryParams` and `ConcatRequestBody`: `ids` and the read options, nothing else. */
const CONCAT_FIELDS: ReadonlySet<string> = new Set(['ids', ...READ_PARAMETERS]);

/** The blobs of a concatenation, as given (blob ids or object ids, in order), and the check to read them with. */
export interface ConcatRequest {
  ids: string[];
  check: ConsistencyCheck;
}

/** `GET /v1alpha/blobs/concat?ids=a,b,…`: comma-separated, blanks dropped (walrus daemon get_blobs_concat). */
export function parseConcatQuery(rawQuery: string): ConcatRequest {
  const params = splitQuery(rawQuery);
  refuseUnknown(params, CONCAT_FIELDS);
  const ids = params.get('ids');
  if (ids === undefined) throw new PublisherError('MALFORMED_REQUEST', 'ids is required');
  return { ids: ids.split(',').map((id) => id.trim()).filter((id) => id !== ''), check: consistencyCheck(params) };
}

/** `POST /v1alpha/blobs/concat` with `{"ids": […], "strict_consistency_check"?, "skip_consistency_check"?}` (walrus daemon `ConcatRequestBody`). */
export function parseConcatBody(body: Buffer): ConcatRequest {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new PublisherError('MALFORMED_REQUEST', 'the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PublisherError('MALFORMED_REQUEST', 'the body is not a JSON object');
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !CONCAT_FIELDS.has(k));
  if (unknown !== undefined) throw new PublisherError('MALFORMED_REQUEST', `unknown field '${unknown.slice(0, 64)}'`);
  const { ids } = fields;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw new PublisherError('MALFORMED_REQUEST', 'ids must be an array of strings');
  const flag = (name: string): boolean => {
    const v = fields[name];
    if (v === undefined || v === null || typeof v === 'boolean') return v === true;
    throw new PublisherError('MALFORMED_REQUEST', `${name} must be a boolean`);
  };
  return { ids: ids as string[], check: checkOf(flag('strict_consistency_check'), flag('skip_consistency_check')) };
}
/** The byte-range route takes no consistency switches (walrus daemon `ByteRangeQueryParams`). */
const BYTE_RANGE_PARAMETERS: ReadonlySet<string> = new Set(['start', 'length']);

function consistencyCheck(params: Map<string, string>): ConsistencyCheck {
  return checkOf(parseBool(params, 'strict_consistency_check') === true, parseBool(params, 'skip_consistency_check') === true);
}

/** The check the two switches ask for (see parseReadQuery); both together are refused. */
function checkOf(strict: boolean, skip: boolean): ConsistencyCheck {
  if (strict && skip) throw new PublisherError('MALFORMED_REQUEST', 'strict_consistency_check and skip_consistency_check exclude each other');
  return strict ? 'strict' : 'default';
}

export interface ByteRangeQuery {
  start: number;
  length: number;
}

/** `start` and `length` of `GET /v1/blobs/{id}/byte-range`: both required, length above 0. */
export function parseByteRangeQuery(rawQuery: string): ByteRangeQuery {
  const params = splitQuery(rawQuery);
  refuseUnknown(params, BYTE_RANGE_PARAMETERS);
  const number = (name: string): number => {
    const text = params.get(name);
    const value = text !== undefined && U53_PATTERN.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value)) {
      throw new PublisherError('INVALID_BYTE_RANGE_QUERY', `${name} must be an unsigned integer, got ${text === undefined ? 'nothing' : `'${text}'`}`);
    }
    return value;
  };
  const start = number('start');
  const length = number('length');
  if (length === 0) throw new PublisherError('INVALID_BYTE_RANGE_QUERY', 'length must be above 0');
  if (!Number.isSafeInteger(start + length)) throw new PublisherError('INVALID_BYTE_RANGE_QUERY', 'start + length overflows');
  return { start, length };
}
