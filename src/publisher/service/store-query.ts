// Strict parsing of the `PUT /v1/blobs` query (walrus.md §10.2, seed interface B): every value is
// checked before a byte of the body is read, so a bad request leaves no ledger entry and no slivers.

import { PublisherError } from './errors.js';
import { parseBool, refuseUnknown, splitQuery } from './query-params.js';

/** Sui addresses are 0x + 64 hex digits (walrus.md §9.4); shortened forms are not accepted. */
const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** serde's u32 from a query string: decimal digits only. */
const U32_PATTERN = /^[0-9]{1,10}$/;
const U32_MAX = 0xffff_ffff;

export interface StoreQuery {
  /** epochs ahead of the current one (walrus.md §9.3); seed default 1 */
  epochs: number;
  /** seed default false: the blob is permanent unless `deletable=true` or `permanent=false` (walrus.md §10.2 note) */
  deletable: boolean;
  /** `send_object_to`, lower-cased; the publisher keeps the object when absent */
  sendObjectTo?: string;
  /** skip the already-certified check (walrus.md §10.3) */
  force: boolean;
  /** wrap the certified Blob object in a shared object (exclusive with sendObjectTo) */
  share: boolean;
  /** `reuse_resources` (default false): look for a Blob object the publisher owns first (walrus.md §10.2) */
  reuseResources: boolean;
}

/** Parameters Walrus knows (walrus.md §10.2); anything else is denied as there. */
const KNOWN = new Set(['epochs', 'deletable', 'permanent', 'send_object_to', 'share', 'force', 'reuse_resources', 'encoding_type', 'quilt_version']);
/** quilt_encoding.rs `From<String> for QuiltVersionEnum`: the spellings of V1, the only version (others are refused here, not read as V1). */
const QUILT_V1_SPELLINGS = new Set(['v1', 'V1', '1']);

export function parseStoreQuery(rawQuery: string, maxEpochsAhead: number): StoreQuery {
  const params = splitQuery(rawQuery);
  refuseUnknown(params, KNOWN);
  const epochs = parseEpochs(params.get('epochs'), maxEpochsAhead);
  const permanent = parseBool(params, 'permanent');
  // Seed default: permanent unless asked otherwise, by `deletable=true` or, as on Walrus since
  // v1.33, by `permanent=false` (walrus.md §10.2 note; README "Differences from Walrus").
  const deletable = (parseBool(params, 'deletable') ?? false) || permanent === false;
  if (deletable && permanent === true) throw new PublisherError('INVALID_BLOB_PERSISTENCE');
  const force = parseBool(params, 'force') ?? false;
  const share = parseBool(params, 'share') ?? false;
  // routes.rs SendOrShare: one of the two, a request with both does not deserialize.
  if (share && params.has('send_object_to')) {
    throw new PublisherError('MALFORMED_REQUEST', 'share and send_object_to exclude each other', { parameter: 'share' });
  }
  const reuseResources = parseBool(params, 'reuse_resources') ?? false;
  const encoding = params.get('encoding_type');
  if (encoding !== undefined && encoding !== 'RS2') {
    throw new PublisherError('MALFORMED_REQUEST', `encoding_type must be RS2, got '${encoding}'`, { parameter: 'encoding_type' });
  }
  const quiltVersion = params.get('quilt_version');
  if (quiltVersion !== undefined && !QUILT_V1_SPELLINGS.has(quiltVersion)) {
    throw new PublisherError('MALFORMED_REQUEST', `quilt_version must be v1, V1 or 1, got '${quiltVersion}'`, { parameter: 'quilt_version' });
  }
  const target = params.get('send_object_to');
  if (target !== undefined && !ADDRESS_PATTERN.test(target)) {
    throw new PublisherError('MALFORMED_REQUEST', 'send_object_to must be 0x followed by 64 hexadecimal digits', { parameter: 'send_object_to' });
  }
  return { epochs, deletable, sendObjectTo: target?.toLowerCase(), force, share, reuseResources };
}

function parseEpochs(value: string | undefined, maxEpochsAhead: number): number {
  if (value === undefined) return 1;
  const epochs = U32_PATTERN.test(value) ? Number(value) : NaN;
  if (!(epochs <= U32_MAX)) {
    throw new PublisherError('MALFORMED_REQUEST', `epochs must be an unsigned integer, got '${value}'`, { parameter: 'epochs' });
  }
  if (epochs < 1 || epochs > maxEpochsAhead) {
    throw new PublisherError('INVALID_EPOCHS', `got ${epochs}, the maximum is ${maxEpochsAhead}`, { maxEpochsAhead: String(maxEpochsAhead) });
  }
  return epochs;
}
