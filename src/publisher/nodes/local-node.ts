// A storage node inside this process: its own directory, storage engine and Ed25519 key, behind the
// same StorageNodeClient interface as a remote node.

import fs from 'node:fs';
import path from 'node:path';
import { parseBlobMetadata, type BlobMetadata } from './bcs.js';
import { signConfirmation } from './confirmation.js';
import { encodingParams } from './encoding-params.js';
import { StorageNodeError } from './errors.js';
import { assertBlobId } from './identifiers.js';
import { loadOrCreateNodeKey, type NodeKey } from './node-key.js';
import { pairToShard, shardToPair } from './rotation.js';
import { bundleChunks, headerLength, maxHeaderLength, parseBundleIndex, type BundleIndex, type PartLocation } from './blob-bundle.js';
import { RecentMap } from './recent-map.js';
import { blobPrefix, bundleKey, metadataKey, sliverKey, SliverStore } from './sliver-store.js';
import type { BlobType, IndexedSliverPair, NodeHealth, NodeInfo, PutOutcome, SignedConfirmation, SliverAxis, StorageNodeClient } from './types.js';
import { structuralOnlyVerifier, type BlobVerifier } from './verifier.js';

export const NODE_CONFIG_FILE = 'node.json';
/** Parsed metadata kept per node: a blob's slivers arrive together, each needs the metadata. */
const METADATA_CACHE_ENTRIES = 256;
/** Parsed bundle indexes kept per node: an aggregator read asks for a blob's slivers together. */
const BUNDLE_CACHE_ENTRIES = 256;

interface OpenBundle {
  /** the stored body's identity: a re-stored bundle has another */
  identity: string;
  index: BundleIndex;
}

export interface LocalNodeOptions {
  dir: string;
  nodeId: string;
  shards: readonly number[];
  nShards: number;
  durability: 'strict' | 'relaxed';
  /** the node engine's disk reserve (default: the engine's) */
  diskReserve?: number;
  /** Default structuralOnlyVerifier: sizes and structure only, no hash checks (see verifier.ts). */
  verifier?: BlobVerifier;
  /** compaction deleted one of the node engine's segments (readers in other threads drop their fds of it) */
  onSegmentRemoved?: (segment: number) => void;
}

export async function openLocalNode(options: LocalNodeOptions): Promise<LocalNode> {
  encodingParams(options.nShards); // refuses n < 4
  const shards = [...new Set(options.shards)].sort((a, b) => a - b);
  for (const s of shards) {
    if (!Number.isInteger(s) || s < 0 || s >= options.nShards) throw new RangeError(`shard ${s} is not in 0..${options.nShards - 1}`);
  }
  fs.mkdirSync(options.dir, { recursive: true });
  checkNodeConfig(options.dir, options.nodeId, options.nShards);
  const key = loadOrCreateNodeKey(options.dir);
  const store = await SliverStore.open(options.dir, options.durability, options.diskReserve, options.onSegmentRemoved);
  return new LocalNode(options.nodeId, shards, options.nShards, key, store, options.verifier ?? structuralOnlyVerifier);
}

/**
 * A read-only LocalNode, for another thread of the process in which openLocalNode has `dir` open:
 * its reads see the writer's commits from its last refresh() on; its writes throw.
 */
export async function openLocalNodeReader(options: Pick<LocalNodeOptions, 'dir' | 'nodeId' | 'shards' | 'nShards'>): Promise<LocalNode> {
  const key = loadOrCreateNodeKey(options.dir);
  const store = await SliverStore.openReader(options.dir);
  return new LocalNode(options.nodeId, [...options.shards], options.nShards, key, store, structuralOnlyVerifier);
}

/** Sliver keys depend on n_shards, so a directory never changes its shard count. */
function checkNodeConfig(dir: string, nodeId: string, nShards: number): void {
  const file = path.join(dir, NODE_CONFIG_FILE);
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { nShards: number };
    if (saved.nShards !== nShards) throw new Error(`${dir} holds a node for n_shards=${saved.nShards}, not ${nShards}`);
    return;
  }
  fs.writeFileSync(file, `${JSON.stringify({ nodeId, nShards })}\n`);
}

export class LocalNode implements StorageNodeClient {
  private readonly shardSet: ReadonlySet<number>;
  private readonly metadataCache = new RecentMap<string, BlobMetadata>(METADATA_CACHE_ENTRIES);
  private readonly bundleCache = new RecentMap<string, OpenBundle>(BUNDLE_CACHE_ENTRIES);
  private readonly openedAt = Date.now();
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    readonly nodeId: string,
    readonly shards: readonly number[],
    readonly nShards: number,
    private readonly key: NodeKey,
    private readonly store: SliverStore,
    private readonly verifier: BlobVerifier,
  ) {
    this.shardSet = new Set(shards);
  }

  get publicKey(): string {
    return this.key.publicKeyRaw.toString('base64');
  }

  info(): Promise<NodeInfo> {
    return this.run(async () => ({ nodeId: this.nodeId, publicKey: this.publicKey, shards: [...this.shards], nShards: this.nShards }));
  }

  health(): Promise<NodeHealth> {
    return this.run(async () => ({
      status: 'ready' as const,
      ...(await this.info()),
      uptimeSecs: Math.floor((Date.now() - this.openedAt) / 1000),
    }));
  }

  putMetadata(blobId: Buffer, metadataBcs: Buffer): Promise<PutOutcome> {
    return this.run(async () => {
      const metadata = await this.checkMetadata(blobId, metadataBcs);
      const outcome = await this.store.putIfAbsent(metadataKey(blobId), metadataBcs);
      if (outcome === 'stored') this.metadataCache.set(blobId.toString('hex'), metadata);
      return outcome;
    });
  }

  getMetadata(blobId: Buffer): Promise<Buffer | undefined> {
    return this.run(async () => {
      assertBlobId(blobId);
      return (await this.store.get(metadataKey(blobId))) ?? this.readBundlePart(blobId, (index) => index.metadata);
    });
  }

  /**
   * The whole share as one bundle record (blob-bundle.ts): every part is checked as putMetadata and
   * putSliver check it, and the share must hold both slivers of the pair of every shard of this node.
   */
  putShare(blobId: Buffer, metadataBcs: Buffer, pairs: readonly IndexedSliverPair[]): Promise<PutOutcome> {
    return this.run(async () => {
      assertBlobId(blobId);
      if (this.store.has(bundleKey(blobId))) return 'already-stored';
      const metadata = await this.checkMetadata(blobId, metadataBcs);
      const missing = new Set(this.shards.map((shard) => shardToPair(shard, blobId, this.nShards)));
      for (const { pairIndex } of pairs) {
        this.checkPair(blobId, pairIndex);
        if (!missing.delete(pairIndex)) throw new StorageNodeError('INVALID_SLIVER', `pair ${pairIndex} appears twice in the share`);
      }
      if (missing.size > 0) throw new StorageNodeError('INVALID_SLIVER', `the share lacks pairs ${[...missing].join(', ')}`);
      await Promise.all(
        pairs.flatMap(({ pairIndex, primary, secondary }) => [
          this.verifier.verifySliver(metadata, pairIndex, 'primary', primary),
          this.verifier.verifySliver(metadata, pairIndex, 'secondary', secondary),
        ]),
      );
      const chunks = bundleChunks(metadataBcs, pairs);
      const outcome = await this.store.putIfAbsent(bundleKey(blobId), chunks);
      if (outcome === 'stored') {
        const id = blobId.toString('hex');
        this.metadataCache.set(id, metadata);
        // the index just written (its first chunk), so the confirmation that follows reads nothing back
        const stat = this.store.stat(bundleKey(blobId));
        if (stat) this.bundleCache.set(id, { identity: stat.identity, index: parseBundleIndex(chunks[0]!, stat.size) });
      }
      return outcome;
    });
  }

  putSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): Promise<PutOutcome> {
    return this.run(async () => {
      this.checkPair(blobId, pairIndex);
      const metadata = await this.metadata(blobId);
      if (!metadata) throw new StorageNodeError('MISSING_METADATA');
      await this.verifier.verifySliver(metadata, pairIndex, axis, sliverBcs);
      return this.store.putIfAbsent(sliverKey(blobId, pairIndex, axis), sliverBcs);
    });
  }

  getSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis): Promise<Buffer | undefined> {
    return this.run(async () => {
      this.checkPair(blobId, pairIndex);
      return (await this.readBundlePart(blobId, (index) => index.sliver(pairIndex, axis))) ?? this.store.get(sliverKey(blobId, pairIndex, axis));
    });
  }

  /**
   * The bundled ones as views of one read spanning them (a node's primaries, or secondaries, lie
   * side by side in its bundle: blob-bundle.ts), so the blocks under them are read and checked
   * once, not once per sliver; any others one by one.
   */
  getSlivers(blobId: Buffer, pairIndexes: readonly number[], axis: SliverAxis): Promise<Map<number, Buffer>> {
    return this.run(async () => {
      for (const pair of pairIndexes) this.checkPair(blobId, pair);
      const out = new Map<number, Buffer>();
      const bundle = await this.openBundle(blobId);
      const parts = bundle
        ? pairIndexes.flatMap((pair) => {
            const at = bundle.index.sliver(pair, axis);
            return at ? [[pair, at] as const] : [];
          })
        : [];
      if (bundle && parts.length > 0) {
        const start = Math.min(...parts.map(([, at]) => at.offset));
        const end = Math.max(...parts.map(([, at]) => at.offset + at.length));
        const span = await this.store.getRange(bundleKey(blobId), start, end, bundle.identity);
        for (const [pair, at] of span ? parts : []) out.set(pair, span!.subarray(at.offset - start, at.offset - start + at.length));
      }
      for (const pair of pairIndexes) {
        if (out.has(pair)) continue;
        const sliver = await this.store.get(sliverKey(blobId, pair, axis));
        if (sliver) out.set(pair, sliver);
      }
      return out;
    });
  }

  getConfirmation(blobId: Buffer, blobType: BlobType, epoch: number): Promise<SignedConfirmation> {
    return this.run(async () => {
      assertBlobId(blobId);
      if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff_ffff) throw new StorageNodeError('INVALID_EPOCH', `${epoch}`);
      const bundle = await this.openBundle(blobId);
      if (!bundle?.index.metadata && !this.store.has(metadataKey(blobId))) throw new StorageNodeError('NOT_FULLY_STORED', 'no metadata');
      for (const shard of this.shards) {
        const pair = shardToPair(shard, blobId, this.nShards);
        if (bundle?.index.hasPair(pair)) continue;
        for (const axis of ['primary', 'secondary'] as const) {
          if (!this.store.has(sliverKey(blobId, pair, axis))) {
            throw new StorageNodeError('NOT_FULLY_STORED', `shard ${shard} lacks the ${axis} sliver of pair ${pair}`);
          }
        }
      }
      return signConfirmation(this.key.privateKey, { epoch, blobId, blobType });
    });
  }

  deleteBlob(blobId: Buffer): Promise<number> {
    return this.run(async () => {
      assertBlobId(blobId);
      this.metadataCache.delete(blobId.toString('hex'));
      this.bundleCache.delete(blobId.toString('hex'));
      return this.store.deletePrefix(blobPrefix(blobId));
    });
  }

  /** A reader (openLocalNodeReader): reads from here on see every commit the writer made before this call. */
  refresh(): void {
    this.store.refresh();
  }

  /** A reader: the writer's compaction deleted `segment`. */
  segmentRemoved(segment: number): void {
    this.store.segmentRemoved(segment);
  }

  /** Waits for in-flight calls, then closes the storage engine; later calls fail with NODE_UNAVAILABLE. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
      await this.store.close();
    })();
    return this.closing;
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    if (this.closing) throw new StorageNodeError('NODE_UNAVAILABLE', `node ${this.nodeId} is closed`);
    this.inFlight++;
    try {
      return await op();
    } finally {
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  private checkPair(blobId: Buffer, pairIndex: number): void {
    assertBlobId(blobId);
    if (!Number.isInteger(pairIndex) || pairIndex < 0 || pairIndex >= this.nShards) {
      throw new StorageNodeError('INVALID_PAIR_INDEX', `${pairIndex} is not in 0..${this.nShards - 1}`);
    }
    const shard = pairToShard(pairIndex, blobId, this.nShards);
    if (!this.shardSet.has(shard)) throw new StorageNodeError('SHARD_NOT_ASSIGNED', `pair ${pairIndex} lives on shard ${shard}`);
  }

  /** Parses and verifies metadata addressed to `blobId` (putMetadata's and putShare's checks). */
  private async checkMetadata(blobId: Buffer, metadataBcs: Buffer): Promise<BlobMetadata> {
    assertBlobId(blobId);
    const metadata = parseBlobMetadata(metadataBcs);
    if (metadata.pairCount !== this.nShards) {
      throw new StorageNodeError('INVALID_METADATA', `${metadata.pairCount} sliver pairs, this network has ${this.nShards} shards`);
    }
    await this.verifier.verifyMetadata(blobId, metadataBcs, metadata);
    return metadata;
  }

  private async metadata(blobId: Buffer): Promise<BlobMetadata | undefined> {
    const id = blobId.toString('hex');
    const cached = this.metadataCache.get(id);
    if (cached) return cached;
    const bcs = (await this.store.get(metadataKey(blobId))) ?? (await this.readBundlePart(blobId, (index) => index.metadata));
    if (!bcs) return undefined;
    const metadata = parseBlobMetadata(bcs);
    this.metadataCache.set(id, metadata);
    return metadata;
  }

  /** The blob's bundle and its parsed index (cached while the stored body stays the same), if there is one. */
  private async openBundle(blobId: Buffer): Promise<OpenBundle | undefined> {
    const key = bundleKey(blobId);
    const stat = this.store.stat(key);
    if (!stat) return undefined;
    const id = blobId.toString('hex');
    const cached = this.bundleCache.get(id);
    if (cached?.identity === stat.identity) return cached;
    let head = await this.store.getRange(key, 0, maxHeaderLength(this.shards.length), stat.identity);
    // A bundle written while this node held more shards has a longer header.
    if (head && head.length < headerLength(head)) head = await this.store.getRange(key, 0, headerLength(head), stat.identity);
    if (!head) return undefined;
    const bundle = { identity: stat.identity, index: parseBundleIndex(head, stat.size) };
    this.bundleCache.set(id, bundle);
    return bundle;
  }

  private async readBundlePart(blobId: Buffer, pick: (index: BundleIndex) => PartLocation | undefined): Promise<Buffer | undefined> {
    const bundle = await this.openBundle(blobId);
    const at = bundle && pick(bundle.index);
    return at && this.store.getRange(bundleKey(blobId), at.offset, at.offset + at.length, bundle.identity);
  }
}
