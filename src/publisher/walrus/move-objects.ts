// The BCS layouts of the Walrus Move objects the publisher reads itself (contracts/walrus in
// MystenLabs/walrus: blob.move, storage_resource.move, staking_pool.move, storage_node.move), as far
// as it reads them: a Blob whole, and a StakingPool up to its node's network address. The SDK's
// own bindings are not exported by @mysten/walrus.

import { bcs } from '@mysten/sui/bcs';
import { blobIdFromInt } from '@mysten/walrus';
import type { BlobObject } from '../ledger/index.js';

const Storage = bcs.struct('Storage', {
  id: bcs.Address,
  start_epoch: bcs.u32(),
  end_epoch: bcs.u32(),
  storage_size: bcs.u64(),
});

const Blob = bcs.struct('Blob', {
  id: bcs.Address,
  registered_epoch: bcs.u32(),
  blob_id: bcs.u256(),
  size: bcs.u64(),
  encoding_type: bcs.u8(),
  certified_epoch: bcs.option(bcs.u32()),
  storage: Storage,
  deletable: bcs.bool(),
});

/** StakingPool's fields up to node_info.network_address; the rest of the object is not read. */
const StakingPoolHead = bcs.struct('StakingPoolHead', {
  id: bcs.Address,
  state: bcs.enum('PoolState', { Active: null, Withdrawing: bcs.u32(), Withdrawn: null }),
  voting_params: bcs.struct('VotingParams', { storage_price: bcs.u64(), write_price: bcs.u64(), node_capacity: bcs.u64() }),
  name: bcs.string(),
  node_id: bcs.Address,
  network_address: bcs.string(),
});

/** walrus encoding_type 1 is RS2, the only one Tusk stores. */
const RS2 = 1;

/** A Blob object's BCS as the publisher answers it (walrus.md §10.3). */
export function parseBlobObject(content: Uint8Array, owner: string): BlobObject {
  const b = Blob.parse(content);
  if (b.encoding_type !== RS2) throw new Error(`Blob ${b.id} has encoding type ${b.encoding_type}, not RS2`);
  return {
    id: b.id,
    registeredEpoch: b.registered_epoch,
    blobId: blobIdFromInt(b.blob_id),
    size: Number(b.size),
    encodingType: 'RS2',
    certifiedEpoch: b.certified_epoch ?? null,
    storage: { id: b.storage.id, startEpoch: b.storage.start_epoch, endEpoch: b.storage.end_epoch, storageSize: Number(b.storage.storage_size) },
    deletable: b.deletable,
    owner,
  };
}

/** The `host:port` a storage node serves its API on (the SDK reaches it as https://host:port). */
export function stakingPoolNetworkAddress(content: Uint8Array): { nodeId: string; networkAddress: string } {
  const head = StakingPoolHead.parse(content);
  return { nodeId: head.node_id, networkAddress: head.network_address };
}
