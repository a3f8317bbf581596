// Tusk as a Walrus upload relay (walrus.md §10; walrus-upload-relay controller.rs, walrus-sdk
// upload_relay.rs and params.rs): a client that registered a blob sends its bytes once to
// POST /v1/blob-upload-relay; the relay encodes them (natively here), checks the blob id, stores the
// slivers on the storage network and answers the nodes' confirmations as a certificate, which the
// client then posts to certify the blob. GET /v1/tip-config says what the relay charges.
//
// On Walrus the nodes check the registration and the certificate is their BLS aggregate. On the
// embedded network the blob must be registered on Tusk's ledger (the embedded nodes leave that
// check to the relay), and the certificate's `signature` is the signers' 64-byte Ed25519
// signatures back to back, in signer order (README, "Upload relay").

import { isObjectId, isTxDigest } from '../ledger/index.js';
import { parseBlobId } from './aggregator.js';
import type { PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import { refuseUnknown, splitQuery } from './query-params.js';
import { checkEncodable } from './store-blob.js';

/** walrus-upload-relay tip.rs TipConfig: this relay takes no tip. */
export const TIP_CONFIG = 'no_tip';

const RELAY_PARAMETERS: ReadonlySet<string> = new Set(['blob_id', 'tx_id', 'nonce', 'deletable_blob_object', 'encoding_type']);
const NONCE_BYTES = 32;

export interface RelayQuery {
  blobId: string;
  /** the deletable Blob object being uploaded; absent for a permanent blob */
  deletableBlobObject?: string;
}

/** walrus-sdk upload_relay ResponseType: snake_case, the message as a byte array. */
export interface RelayResponse {
  blob_id: string;
  confirmation_certificate: { signers: number[]; serialized_message: number[]; signature: string };
}

/** params.rs `Params` (deny_unknown_fields): tx_id and nonce are checked for shape only, as no tip is asked. */
export function parseRelayQuery(rawQuery: string): RelayQuery {
  const params = splitQuery(rawQuery);
  refuseUnknown(params, RELAY_PARAMETERS);
  const blobId = params.get('blob_id');
  if (blobId === undefined) throw new PublisherError('MALFORMED_REQUEST', 'blob_id is required', { parameter: 'blob_id' });
  parseBlobId(blobId);
  const txId = params.get('tx_id');
  if (txId !== undefined && !isTxDigest(txId)) throw new PublisherError('MALFORMED_REQUEST', 'tx_id must be a Base58 transaction digest', { parameter: 'tx_id' });
  const nonce = params.get('nonce');
  if (nonce !== undefined && !(/^[A-Za-z0-9_-]{43}$/.test(nonce) && Buffer.from(nonce, 'base64url').length === NONCE_BYTES)) {
    throw new PublisherError('MALFORMED_REQUEST', 'nonce must be 32 bytes of unpadded base64url', { parameter: 'nonce' });
  }
  const encoding = params.get('encoding_type');
  if (encoding !== undefined && encoding !== 'RS2') throw new PublisherError('MALFORMED_REQUEST', `encoding_type must be RS2, got '${encoding}'`, { parameter: 'encoding_type' });
  const deletable = params.get('deletable_blob_object');
  if (deletable !== undefined && !isObjectId(deletable)) throw new PublisherError('INVALID_OBJECT_ID', `got '${deletable.slice(0, 80)}'`);
  return { blobId, deletableBlobObject: deletable?.toLowerCase() };
}

export async function relayBlob(ctx: PublisherContext, data: Buffer, query: RelayQuery): Promise<RelayResponse> {
  checkEncodable(data.length, ctx.nShards);
  const encoded = await ctx.codec.encode(data, ctx.nShards);
  // controller.rs fan_out: the id the client registered must be the id of these bytes.
  if (encoded.blobIdText !== query.blobId) throw new PublisherError('BLOB_ID_MISMATCH', `the body encodes to ${encoded.blobIdText}`);
  const certificate = await ctx.backend.relay(encoded, query.deletableBlobObject);
  return {
    blob_id: encoded.blobIdText,
    confirmation_certificate: {
      signers: certificate.signers,
      serialized_message: [...certificate.serializedMessage],
      signature: Buffer.from(certificate.signature).toString('base64url'),
    },
  };
}
