// The Walrus SDK's own BCS definitions, re-exported for the double: the generated Move bindings
// (node_modules/@mysten/walrus/dist/esm/contracts/walrus/*.js, generated from MystenLabs/walrus
// contracts/walrus/sources) and its wire formats (utils/bcs.js: BlobMetadata, SliverData,
// StorageConfirmation — walrus-core metadata.rs, encoding/slivers.rs, messages/storage_confirmation.rs).
// @mysten/walrus's package "exports" only exposes its root, so these are imported by path.

export { Blob } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/blob.js';
export { Storage } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/storage_resource.js';
export { System } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/system.js';
export { SystemStateInnerV1 } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/system_state_inner.js';
export { Staking } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/staking.js';
export { StakingInnerV1 } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/staking_inner.js';
export { StakingPool } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/staking_pool.js';
export { Metadata } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/metadata.js';
export { SharedBlob } from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/shared_blob.js';
export {
  BlobCertified,
  BlobDeleted,
  BlobRegistered,
} from '../../../node_modules/@mysten/walrus/dist/esm/contracts/walrus/events.js';
export {
  BlobId,
  BlobMetadata,
  BlobMetadataWithId,
  Field,
  SliverData,
  StorageConfirmation,
  blobIdFromInt,
  blobIdToInt,
} from '../../../node_modules/@mysten/walrus/dist/esm/utils/bcs.js';
export { getSourceSymbols, toShardIndex } from '../../../node_modules/@mysten/walrus/dist/esm/utils/index.js';
