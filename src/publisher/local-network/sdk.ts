// The Walrus SDK's own BCS definitions, re-exported for the double: the generated Move bindings
// (node_modules/@mysten/walrus/dist/contracts/walrus/*.mjs, generated from MystenLabs/walrus
// contracts/walrus/sources) and its wire formats (utils/bcs.mjs: BlobMetadata, SliverData,
// StorageConfirmation — walrus-core metadata.rs, encoding/slivers.rs, messages/storage_confirmation.rs).
// @mysten/walrus's package "exports" only exposes its root, so these are imported by path.
// @mysten/walrus 1.x no longer ships the bindings of shared_blob.move and events.move: those few
// structs are written out below from the Move sources (field order is the BCS layout).

import { bcs, type BcsType } from '@mysten/sui/bcs';
import { Blob } from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/blob.mjs';

export { Blob };
// @mysten/walrus 1.x ships declarations for only a few of these modules: the rest are typed here as BCS types.
// @ts-expect-error no declaration file
import * as storageResource from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/storage_resource.mjs';
// @ts-expect-error no declaration file
import * as system from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/system.mjs';
// @ts-expect-error no declaration file
import * as systemStateInner from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/system_state_inner.mjs';
// @ts-expect-error no declaration file
import * as staking from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/staking.mjs';
// @ts-expect-error no declaration file
import * as stakingInner from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/staking_inner.mjs';
// @ts-expect-error no declaration file
import * as stakingPool from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/staking_pool.mjs';
// @ts-expect-error no declaration file
import * as metadata from '../../../node_modules/@mysten/walrus/dist/contracts/walrus/metadata.mjs';
import * as walrusBcs from '../../../node_modules/@mysten/walrus/dist/utils/bcs.mjs';
// @ts-expect-error no declaration file
import * as walrusUtils from '../../../node_modules/@mysten/walrus/dist/utils/index.mjs';

type AnyBcs = BcsType<any, any>;
const untyped = walrusBcs as unknown as Record<string, AnyBcs>;

export const Storage: AnyBcs = storageResource.Storage;
export const System: AnyBcs = system.System;
export const SystemStateInnerV1: AnyBcs = systemStateInner.SystemStateInnerV1;
export const Staking: AnyBcs = staking.Staking;
export const StakingInnerV1: AnyBcs = stakingInner.StakingInnerV1;
export const StakingPool: AnyBcs = stakingPool.StakingPool;
export const Metadata: AnyBcs = metadata.Metadata;
export const BlobId = untyped.BlobId!;
export const BlobMetadata = walrusBcs.BlobMetadata;
export const BlobMetadataWithId = untyped.BlobMetadataWithId!;
export const Field = (untyped as unknown as Record<string, (name: AnyBcs, value: AnyBcs) => AnyBcs>).Field!;
export const SliverData = untyped.SliverData!;
export const StorageConfirmation = untyped.StorageConfirmation!;
export const blobIdFromInt = walrusBcs.blobIdFromInt;
export const blobIdToInt = walrusBcs.blobIdToInt;
export const getSourceSymbols: (nShards: number) => { primarySymbols: number; secondarySymbols: number } = walrusUtils.getSourceSymbols;
export const toShardIndex: (pairIndex: number, blobId: string, nShards: number) => number = walrusUtils.toShardIndex;

/** shared_blob.move: `SharedBlob has key, store { id: UID, blob: Blob, funds: Balance<WAL> }`. */
export const SharedBlob = bcs.struct('SharedBlob', { id: bcs.Address, blob: Blob, funds: bcs.struct('Balance', { value: bcs.u64() }) });

/** events.move */
export const BlobRegistered = bcs.struct('BlobRegistered', {
  epoch: bcs.u32(),
  blob_id: bcs.u256(),
  size: bcs.u64(),
  encoding_type: bcs.u8(),
  end_epoch: bcs.u32(),
  deletable: bcs.bool(),
  object_id: bcs.Address,
});
export const BlobCertified = bcs.struct('BlobCertified', {
  epoch: bcs.u32(),
  blob_id: bcs.u256(),
  end_epoch: bcs.u32(),
  deletable: bcs.bool(),
  object_id: bcs.Address,
  is_extension: bcs.bool(),
});
export const BlobDeleted = bcs.struct('BlobDeleted', {
  epoch: bcs.u32(),
  blob_id: bcs.u256(),
  end_epoch: bcs.u32(),
  object_id: bcs.Address,
  was_certified: bcs.bool(),
});
