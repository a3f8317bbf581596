// The storage nodes of the local network (`--network local`, and the test double): each an HTTPS
// server (tls.ts) on 127.0.0.1 serving the Walrus storage-node API for the shards the committee
// assigns to it, reading the chain in process
// (registrations, Blob objects and Walrus events). Each can be stopped and started again (its
// stored slivers survive, as on a restarted node). Upstream facts (MystenLabs/walrus):
// - crates/walrus-service/src/node/server/routes.rs: the routes, ApiSuccess { success: { code,
//   data } } bodies, 201 "… successfully stored" / 200 "… already stored".
// - crates/walrus-service/src/node.rs: store_metadata verifies the metadata then needs the blob
//   registered; store_sliver checks the index, the sliver-index/pair consistency, the metadata,
//   the shard assignment and the sliver; retrieve_* need the blob registered (else 404);
//   compute_storage_confirmation needs registration, all slivers of the node's shards, and for a
//   deletable blob the Blob object registered; the confirmation is signed BCS StorageConfirmation.
// - crates/walrus-service/src/node/errors.rs and walrus-storage-node-client api/errors.rs: error
//   bodies { error: { code, status, message, details: [{ @type: ErrorInfo, reason, domain:
//   "storage.walrus.space", metadata }] } } with the reasons NOT_REGISTERED, METADATA_NOT_FOUND,
//   SLIVER_NOT_FOUND, SHARD_NOT_ASSIGNED, INDEX_OUT_OF_RANGE, SLIVER_INDEX_MISMATCH, INVALID_METADATA,
//   INVALID_SLIVER, MISSING_SLIVERS.
// - walrus-storage-node-client api.rs BlobStatus and node/storage/blob_info/{blob_info_v1,
//   perm_blob_info}.rs: the status a node derives from the Blob events it has seen.
// - walrus-core messages: BLS12-381 min_pk signatures (G1 keys, G2 signatures, DST
//   BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_), the SDK's StorageConfirmation layout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { bls12_381 } from '@noble/curves/bls12-381';
import { bcs, type BcsType } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, fromBase64, normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { Chain, TxRecord } from './chain.js';
import { SYSTEM_VERSION, walrusTypes, type GenesisNode, type World } from './genesis.js';
import {
  Blob,
  BlobCertified,
  BlobDeleted,
  BlobMetadata,
  BlobRegistered,
  blobIdFromInt,
  blobIdToInt,
  Field,
  SliverData,
  StorageConfirmation,
  SystemStateInnerV1,
  toShardIndex,
} from './sdk.js';
import { canonicalType } from './sui-formats.js';
import type { DoubleTls } from './tls.js';
import { deriveBlobId, metadataRootHash, RS2, sourceSymbols, symbolSize } from './walrus-core.js';

const DOMAIN = 'storage.walrus.space';

interface BlobEvent {
  kind: 'register' | 'certify' | 'extend' | 'delete';
  epoch: number;
  endEpoch: number;
  deletable: boolean;
  wasCertified: boolean;
  event: { txDigest: string; eventSeq: string };
}

interface PermanentInfo {
  count: number;
  endEpoch: number;
  event: { txDigest: string; eventSeq: string };
}

/** What the nodes know from the chain: the Walrus events per blob id and the current epoch. */
export class WalrusView {
  private readonly events = new Map<string, BlobEvent[]>();
  private readonly types: { registered: string; certified: string; deleted: string };

  constructor(
    readonly chain: Chain,
    readonly world: World,
    /** how long after a transaction commits the nodes see its events (Walrus nodes follow the chain's checkpoints) */
    private readonly lagMs = 0,
  ) {
    const P = world.walrusPackage;
    this.types = {
      registered: canonicalType(`${P}::events::BlobRegistered`),
      certified: canonicalType(`${P}::events::BlobCertified`),
      deleted: canonicalType(`${P}::events::BlobDeleted`),
    };
    chain.onCommit((tx) => (this.lagMs > 0 ? setTimeout(() => this.index(tx), this.lagMs).unref() : this.index(tx)));
  }

  private index(tx: TxRecord): void {
    for (const e of tx.events) {
      const event = { txDigest: e.txDigest, eventSeq: String(e.eventSeq) };
      let blobId: string;
      let entry: BlobEvent;
      if (e.type === this.types.registered) {
        const v = BlobRegistered.parse(e.bcs);
        blobId = blobIdFromInt(v.blob_id);
        entry = { kind: 'register', epoch: v.epoch, endEpoch: v.end_epoch, deletable: v.deletable, wasCertified: false, event };
      } else if (e.type === this.types.certified) {
        const v = BlobCertified.parse(e.bcs);
        blobId = blobIdFromInt(v.blob_id);
        entry = { kind: v.is_extension ? 'extend' : 'certify', epoch: v.epoch, endEpoch: v.end_epoch, deletable: v.deletable, wasCertified: false, event };
      } else if (e.type === this.types.deleted) {
        const v = BlobDeleted.parse(e.bcs);
        blobId = blobIdFromInt(v.blob_id);
        entry = { kind: 'delete', epoch: v.epoch, endEpoch: v.end_epoch, deletable: true, wasCertified: v.was_certified, event };
      } else continue;
      const list = this.events.get(blobId) ?? [];
      list.push(entry);
      this.events.set(blobId, list);
    }
  }

  /** The committee epoch, from the SystemStateInnerV1 on chain. */
  systemState() {
    const id = deriveDynamicFieldID(this.world.systemObjectId, 'u64', bcs.u64().serialize(SYSTEM_VERSION).toBytes());
    const field = this.chain.get(id)!;
    return Field(bcs.u64(), SystemStateInnerV1).parse(field.contents).value;
  }

  epoch(): number {
    return this.systemState().committee.epoch;
  }

  /** The aggregate status (blob_info_v1.rs update_status / to_blob_status). */
  status(blobId: string): unknown {
    const current = this.epoch();
    let total = 0;
    let certified = 0;
    let permTotal: PermanentInfo | null = null;
    let permCertified: PermanentInfo | null = null;
    let initial: number | null = null;
    let latestRegistered: number | null = null;
    let latestCertified: number | null = null;
    const isCertified = (epoch: number) =>
      initial !== null && initial <= epoch && ((permCertified !== null && permCertified.endEpoch > epoch) || (certified > 0 && latestCertified !== null && latestCertified > epoch));
    const update = (info: PermanentInfo | null, e: BlobEvent, increase: boolean): PermanentInfo => {
      if (!info) return { count: 1, endEpoch: e.endEpoch, event: e.event };
      const count = info.count + (increase ? 1 : 0);
      return e.endEpoch > info.endEpoch ? { count, endEpoch: e.endEpoch, event: e.event } : { ...info, count };
    };
    for (const e of this.events.get(blobId) ?? []) {
      const wasCertified = isCertified(e.epoch);
      if (e.deletable) {
        if (e.kind === 'register') {
          total += 1;
          latestRegistered = Math.max(latestRegistered ?? 0, e.endEpoch);
        } else if (e.kind === 'certify') {
          if (total <= certified) continue;
          certified += 1;
          latestCertified = Math.max(latestCertified ?? 0, e.endEpoch);
        } else if (e.kind === 'extend') {
          latestRegistered = Math.max(latestRegistered ?? 0, e.endEpoch);
          latestCertified = Math.max(latestCertified ?? 0, e.endEpoch);
        } else {
          total = Math.max(0, total - 1);
          if (total === 0) latestRegistered = null;
          if (e.wasCertified) {
            certified = Math.max(0, certified - 1);
            if (certified === 0) latestCertified = null;
          }
        }
      } else if (e.kind === 'register') {
        permTotal = update(permTotal, e, true);
      } else if (e.kind === 'certify') {
        if (!permTotal || e.endEpoch > permTotal.endEpoch || permTotal.count <= (permCertified?.count ?? 0)) continue;
        permCertified = update(permCertified, e, true);
      } else if (e.kind === 'extend') {
        if (permTotal) permTotal = update(permTotal, e, false);
        if (permCertified) permCertified = update(permCertified, e, false);
      } else continue;
      if (e.kind === 'certify' && (!wasCertified || initial === null || initial > e.epoch)) initial = e.epoch;
      if (e.kind === 'delete' && certified === 0 && !permCertified) initial = null;
    }
    const deletableCounts = {
      count_deletable_total: latestRegistered !== null && latestRegistered > current ? total : 0,
      count_deletable_certified: latestCertified !== null && latestCertified > current ? certified : 0,
    };
    for (const [info, isCert] of [[permCertified, true], [permTotal, false]] as const) {
      if (info && info.endEpoch > current)
        return { permanent: { endEpoch: info.endEpoch, isCertified: isCert, statusEvent: info.event, deletableCounts, initialCertifiedEpoch: initial } };
    }
    if (deletableCounts.count_deletable_total || deletableCounts.count_deletable_certified) return { deletable: { initialCertifiedEpoch: initial, deletableCounts } };
    return 'nonexistent';
  }

  isRegistered(blobId: string): boolean {
    return this.status(blobId) !== 'nonexistent';
  }

  /** A deletable Blob object of this blob id that is registered (not deleted, not expired). */
  deletableObjectRegistered(blobId: string, objectId: string): boolean {
    const o = this.chain.get(objectId);
    if (!o || o.type !== walrusTypes(this.world).blob) return false;
    const blob = Blob.parse(o.contents);
    return blob.deletable && blobIdFromInt(blob.blob_id) === blobId && blob.storage.end_epoch > this.epoch();
  }
}

class HttpError extends Error {
  constructor(
    readonly http: number,
    readonly status: string,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const notRegistered = () => new HttpError(400, 'FAILED_PRECONDITION', 'NOT_REGISTERED', 'the blob has not been registered or has already expired');

export class StorageNodeDouble {
  /** BCS BlobMetadata by blob id */
  readonly metadata = new Map<string, Uint8Array>();
  /** BCS SliverData by `${blobId}/${pairIndex}/${primary|secondary}` */
  readonly slivers = new Map<string, Uint8Array>();
  private readonly server: Server;
  private node?: GenesisNode;
  private view?: WalrusView;
  port = 0;
  running = false;

  constructor(tls: DoubleTls) {
    this.server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => this.handle(req, res));
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get shards(): number[] {
    return this.node?.shards ?? [];
  }

  attach(node: GenesisNode, view: WalrusView): void {
    this.node = node;
    this.view = view;
  }

  async start(): Promise<void> {
    if (this.running) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.running = true;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** fault injection: an HTTP status (429, 503, …) every request is answered with, as an overloaded or failing node */
  failWith: number | null = null;

  /** HTTP status → answers so far, for tests */
  readonly statuses = new Map<number, number>();

  private handle(req: IncomingMessage, res: ServerResponse): void {
    res.on('finish', () => this.statuses.set(res.statusCode, (this.statuses.get(res.statusCode) ?? 0) + 1));
    if (this.failWith !== null) {
      const status = this.failWith === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE';
      const details = [{ '@type': 'ErrorInfo', reason: status, domain: DOMAIN, metadata: {} }];
      req.resume();
      res.on('error', () => undefined);
      return send(res, this.failWith, 'application/json', JSON.stringify({ error: { code: this.failWith, status, message: 'injected fault', details } }));
    }
    const chunks: Buffer[] = [];
    req.on('error', () => undefined); // a client that aborts (the SDK cancels what it no longer needs)
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        this.route(req.method ?? 'GET', new URL(req.url ?? '/', 'https://node').pathname, new Uint8Array(Buffer.concat(chunks)), res);
      } catch (error) {
        if (error instanceof HttpError) {
          const details = [{ '@type': 'ErrorInfo', reason: error.reason, domain: DOMAIN, metadata: {} }];
          send(res, error.http, 'application/json', JSON.stringify({ error: { code: error.http, status: error.status, message: error.message, details } }));
        } else {
          const details = [{ '@type': 'ErrorInfo', reason: 'INTERNAL_ERROR', domain: 'global', metadata: {} }];
          send(res, 500, 'application/json', JSON.stringify({ error: { code: 500, status: 'INTERNAL', message: 'an internal error has occurred, please report it', details } }));
        }
      }
    });
    res.on('error', () => undefined);
  }

  private route(method: string, pathname: string, body: Uint8Array, res: ServerResponse): void {
    const m = /^\/v1\/blobs\/([^/]+)\/(metadata|status|slivers\/(\d+)\/(primary|secondary)|confirmation\/permanent|confirmation\/deletable\/([^/]+))$/.exec(pathname);
    if (!m || !this.node || !this.view) return send(res, 404, 'text/plain', '');
    let blobId: string;
    try {
      const bytes = fromBase64(m[1]!.replaceAll('-', '+').replaceAll('_', '/'));
      if (bytes.length !== 32) throw new Error('length');
      blobId = blobIdFromInt(blobIdToInt(m[1]!));
    } catch {
      return send(res, 400, 'text/plain', `Invalid URL: Cannot parse \`blob_id\` with value \`${m[1]}\``);
    }
    const route = m[2]!;
    const expect = (wanted: string) => {
      if (method !== wanted) {
        send(res, 405, 'text/plain', '');
        return false;
      }
      return true;
    };
    if (route === 'metadata') {
      if (method === 'PUT') return this.putMetadata(blobId, body, res);
      if (expect('GET')) this.getMetadata(blobId, res);
    } else if (route === 'status') {
      if (expect('GET')) ok(res, 200, this.view.status(blobId));
    } else if (route.startsWith('slivers/')) {
      const pair = Number(m[3]);
      const type = m[4] as 'primary' | 'secondary';
      if (method === 'PUT') return this.putSliver(blobId, pair, type, body, res);
      if (expect('GET')) this.getSliver(blobId, pair, type, res);
    } else if (expect('GET')) {
      this.confirm(blobId, m[5] ? normalizeSuiAddress(m[5]) : null, res);
    }
  }

  private get nShards(): number {
    return this.view!.world.nShards;
  }

  private checkIndex(pair: number): void {
    if (pair >= this.nShards) throw new HttpError(400, 'INVALID_ARGUMENT', 'INDEX_OUT_OF_RANGE', `requires 0 <= index (${pair}) < ${this.nShards}`);
  }

  private checkShard(blobId: string, pair: number): void {
    const shard = toShardIndex(pair, blobId, this.nShards);
    if (!this.node!.shards.includes(shard))
      throw new HttpError(400, 'FAILED_PRECONDITION', 'SHARD_NOT_ASSIGNED', `shard ${shard} is not assigned to this node in epoch ${this.view!.epoch()}`);
  }

  private putMetadata(blobId: string, body: Uint8Array, res: ServerResponse): void {
    const metadata = parseWhole(BlobMetadata, body);
    if (!metadata) return send(res, 400, 'text/plain', BAD_BODY);
    const v1 = metadata.V1;
    if (v1.encoding_type.$kind !== 'RS2') throw new HttpError(400, 'INVALID_ARGUMENT', 'UNSUPPORTED_ENCODING_TYPE', `unsupported encoding type ${v1.encoding_type.$kind}, supported types are: [RS2]`);
    if (v1.hashes.length !== this.nShards)
      throw new HttpError(400, 'INVALID_ARGUMENT', 'INVALID_METADATA', `the provided metadata failed to verify: the number of hashes (${v1.hashes.length}) does not match the number of shards (${this.nShards})`);
    const digest = (n: { Digest?: number[] | Uint8Array }) => new Uint8Array(n.Digest ?? new Uint8Array(32));
    const root = metadataRootHash(v1.hashes.map((h) => ({ primary: digest(h.primary_hash), secondary: digest(h.secondary_hash) })));
    if (blobIdFromInt(deriveBlobId(BigInt(bcs.u256().parse(root)), RS2, BigInt(v1.unencoded_length))) !== blobId)
      throw new HttpError(400, 'INVALID_ARGUMENT', 'INVALID_METADATA', 'the provided metadata failed to verify: the blob ID does not match the provided metadata');
    if (!this.view!.isRegistered(blobId)) throw notRegistered();
    if (this.metadata.has(blobId)) return ok(res, 200, 'metadata already stored');
    this.metadata.set(blobId, body);
    ok(res, 201, 'metadata successfully stored');
  }

  private getMetadata(blobId: string, res: ServerResponse): void {
    const metadata = this.metadata.get(blobId);
    if (!this.view!.isRegistered(blobId) || !metadata) throw new HttpError(404, 'NOT_FOUND', 'METADATA_NOT_FOUND', 'the requested metadata is unavailable');
    send(res, 200, 'application/octet-stream', Buffer.concat([bcs.u256().serialize(blobIdToInt(blobId)).toBytes(), metadata]));
  }

  private putSliver(blobId: string, pair: number, type: 'primary' | 'secondary', body: Uint8Array, res: ServerResponse): void {
    this.checkIndex(pair);
    const sliver = parseWhole(SliverData, body);
    if (!sliver) return send(res, 400, 'text/plain', BAD_BODY);
    const expectedPair = type === 'primary' ? sliver.index : this.nShards - 1 - sliver.index;
    if (expectedPair !== pair)
      throw new HttpError(400, 'INVALID_ARGUMENT', 'SLIVER_INDEX_MISMATCH', `sliver index ${sliver.index} is inconsistent with sliver pair index ${pair}`);
    const metadata = this.metadata.get(blobId);
    if (!metadata) {
      if (this.view!.isRegistered(blobId)) throw new HttpError(400, 'FAILED_PRECONDITION', 'METADATA_NOT_FOUND', 'blob metadata is required but missing');
      throw notRegistered();
    }
    this.checkShard(blobId, pair);
    const length = BigInt(BlobMetadata.parse(metadata).V1.unencoded_length);
    const size = symbolSize(length, this.nShards);
    const { primary, secondary } = sourceSymbols(this.nShards);
    const count = type === 'primary' ? secondary : primary;
    if (sliver.symbols.symbol_size !== size || sliver.symbols.data.length !== count * size)
      throw new HttpError(400, 'INVALID_ARGUMENT', 'INVALID_SLIVER', `the provided sliver is invalid: expected ${count} symbols of ${size} bytes, got ${sliver.symbols.data.length} bytes of symbol size ${sliver.symbols.symbol_size}`);
    const key = `${blobId}/${pair}/${type}`;
    if (this.slivers.has(key)) return ok(res, 200, 'sliver already stored');
    this.slivers.set(key, body);
    ok(res, 201, 'sliver stored successfully');
  }

  private getSliver(blobId: string, pair: number, type: 'primary' | 'secondary', res: ServerResponse): void {
    this.checkIndex(pair);
    const unavailable = () => new HttpError(404, 'NOT_FOUND', 'SLIVER_NOT_FOUND', 'the requested sliver is unavailable');
    if (!this.view!.isRegistered(blobId)) throw unavailable();
    this.checkShard(blobId, pair);
    const sliver = this.slivers.get(`${blobId}/${pair}/${type}`);
    if (!sliver) throw unavailable();
    send(res, 200, 'application/octet-stream', sliver);
  }

  private confirm(blobId: string, objectId: string | null, res: ServerResponse): void {
    const view = this.view!;
    if (!view.isRegistered(blobId)) throw notRegistered();
    const offset = toShardIndex(0, blobId, this.nShards);
    const stored =
      this.metadata.has(blobId) &&
      this.node!.shards.every((shard) => {
        const pair = (this.nShards + shard - offset) % this.nShards;
        return this.slivers.has(`${blobId}/${pair}/primary`) && this.slivers.has(`${blobId}/${pair}/secondary`);
      });
    if (!stored) throw new HttpError(400, 'FAILED_PRECONDITION', 'MISSING_SLIVERS', 'the required slivers are not all stored');
    if (objectId && !view.deletableObjectRegistered(blobId, objectId)) throw notRegistered();
    const message = StorageConfirmation.serialize({
      intent: 1, // IntentType::BLOB_CERT_MSG
      epoch: view.epoch(),
      messageContents: { blobId, blobType: objectId ? { Deletable: { objectId } } : { Permanent: null } },
    }).toBytes();
    const signature = bls12_381.sign(message, this.node!.blsSecretKey);
    ok(res, 200, { signed: { serializedMessage: toBase64(message), signature: toBase64(signature) } });
  }
}

/** axum's Bcs extractor's answer to a body that does not deserialize. */
const BAD_BODY = 'Failed to deserialize the BCS-encoded request body';

/** The value `type` reads from the whole of `body` (no trailing bytes), or undefined. */
function parseWhole<B extends BcsType<any, any>>(type: B, body: Uint8Array): B['$inferType'] | undefined {
  try {
    const value = type.parse(body);
    return type.serialize(value).toBytes().length === body.length ? value : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function ok(res: ServerResponse, code: number, data: unknown): void {
  send(res, code, 'application/json', JSON.stringify({ success: { code, data } }));
}
