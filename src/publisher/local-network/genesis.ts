// Genesis of the double: the Walrus system objects in the exact BCS layouts of the SDK's contract
// bindings (sdk.ts), a WAL coin type, the storage-node committee with BLS12-381 keys, a faucet, and
// the signatures of the Move functions the double knows (served by sui_getNormalizedMoveFunction,
// checked and run by walrus-calls.ts). Upstream facts (MystenLabs/walrus mainnet-contracts/walrus/sources):
// - system.move: System { id, version = 3, package_id, new_package_id }, shared; SystemStateInnerV1
//   is the dynamic field of the System's UID keyed by `version` (u64).
// - staking.move / staking/staking_inner.move: Staking { id, version = 3, … }, StakingInnerV1 the
//   dynamic field keyed by `version`; EpochState::EpochChangeDone(timestamp); pools in an
//   ObjectTable<ID, StakingPool> (dynamic object fields, so each pool keeps its own object id =
//   node id); committee a VecMap<ID, vector<u16>> of shard indices.
// - system/bls_aggregate.move: BlsCommitteeMember { public_key: Element<UncompressedG1>, weight,
//   node_id }, BlsCommittee { members, n_shards = Σ weights, epoch, total_aggregated_key: Element<G1> }.
// - staking/storage_node.move: StorageNodeInfo { name, node_id, network_address, public_key:
//   Element<G1> (48-byte compressed), next_epoch_public_key, network_public_key, metadata }.
// - system/storage_accounting.move: FutureAccountingRingBuffer, ring_lookup(i) = buffer[(i +
//   current_index) % length], max_epochs_ahead = length.
// - the signatures in WALRUS_FUNCTIONS are those of system.move, blob.move, metadata.move and
//   staking.move, system/shared_blob.move; SUI_FUNCTIONS those of sui-framework coin.move.
// Package ids and object ids are random 32-byte ids.

import { randomBytes } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';
import { bcs, type BcsType } from '@mysten/sui/bcs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { deriveDynamicFieldID, normalizeSuiAddress, toHex } from '@mysten/sui/utils';
import { storageCost, type Chain, type ObjectInit } from './chain.js';
import {
  Blob,
  Field,
  Metadata,
  SharedBlob,
  Staking,
  StakingInnerV1,
  StakingPool,
  Storage,
  System,
  SystemStateInnerV1,
} from './sdk.js';
import { canonicalType, Coin, SUI_TYPE, type Owner } from './sui-formats.js';

export const SYSTEM_VERSION = 3;
export const STAKING_VERSION = 3;

export interface GenesisNode {
  nodeId: string;
  name: string;
  /** "127.0.0.1:PORT" */
  networkAddress: string;
  blsSecretKey: Uint8Array;
  /** compressed G1, 48 bytes */
  blsPublicKey: Uint8Array;
  shards: number[];
}

export interface World {
  walrusPackage: string;
  walPackage: string;
  walType: string;
  systemObjectId: string;
  stakingObjectId: string;
  nShards: number;
  nodes: GenesisNode[];
  faucet: Ed25519Keypair;
  genesisTimeMs: number;
}

export interface GenesisOptions {
  networkAddresses: string[];
  nShards: number;
  epoch: number;
  storagePricePerUnit: bigint;
  writePricePerUnit: bigint;
  maxEpochsAhead: number;
  totalCapacity: bigint;
}

/** A random 32-byte id. Package ids get a non-zero first nibble, so that the JSON-RPC's short
 * address spelling of their types equals the full one (as for the real Walrus packages). */
export function randomId(forPackage = false): string {
  const bytes = randomBytes(32);
  if (forPackage) bytes[0] = bytes[0]! | 0x10;
  return normalizeSuiAddress(toHex(bytes));
}

export function fieldType(nameType: string, valueType: string): string {
  return canonicalType(`0x2::dynamic_field::Field<${nameType}, ${valueType}>`);
}

export function walrusTypes(w: Pick<World, 'walrusPackage' | 'walType'>) {
  const P = w.walrusPackage;
  return {
    system: canonicalType(`${P}::system::System`),
    staking: canonicalType(`${P}::staking::Staking`),
    stakingPool: canonicalType(`${P}::staking_pool::StakingPool`),
    blob: canonicalType(`${P}::blob::Blob`),
    sharedBlob: canonicalType(`${P}::shared_blob::SharedBlob`),
    storage: canonicalType(`${P}::storage_resource::Storage`),
    metadata: canonicalType(`${P}::metadata::Metadata`),
    systemField: fieldType('u64', `${P}::system_state_inner::SystemStateInnerV1`),
    stakingField: fieldType('u64', `${P}::staking_inner::StakingInnerV1`),
    metadataField: fieldType('vector<u8>', `${P}::metadata::Metadata`),
    poolField: fieldType('0x2::dynamic_object_field::Wrapper<0x2::object::ID>', '0x2::object::ID'),
    walCoin: canonicalType(`0x2::coin::Coin<${w.walType}>`),
    suiCoin: canonicalType(`0x2::coin::Coin<${SUI_TYPE}>`),
  };
}

/** The BCS codec of every object type the double holds, by canonical type. */
export function codecs(w: World): Map<string, BcsType<any, any>> {
  const t = walrusTypes(w);
  return new Map<string, BcsType<any, any>>([
    [t.system, System],
    [t.staking, Staking],
    [t.stakingPool, StakingPool],
    [t.blob, Blob],
    [t.sharedBlob, SharedBlob],
    [t.storage, Storage],
    [t.systemField, Field(bcs.u64(), SystemStateInnerV1)],
    [t.stakingField, Field(bcs.u64(), StakingInnerV1)],
    [t.metadataField, Field(bcs.byteVector(), Metadata)],
    [t.poolField, Field(bcs.Address, bcs.Address)],
    [t.walCoin, Coin],
    [t.suiCoin, Coin],
  ]);
}

// ---- Move function signatures ($W: the Walrus package, $WAL: the WAL package) ----

export interface FunctionSig {
  typeParams?: number;
  params: string[];
  returns: string[];
}

const COIN_WAL = '0x2::coin::Coin<$WAL::wal::WAL>';
const TX_CONTEXT = '&mut 0x2::tx_context::TxContext';

export const WALRUS_FUNCTIONS: Record<string, FunctionSig> = {
  'system::reserve_space': { params: ['&mut $W::system::System', 'u64', 'u32', `&mut ${COIN_WAL}`, TX_CONTEXT], returns: ['$W::storage_resource::Storage'] },
  'system::register_blob': {
    params: ['&mut $W::system::System', '$W::storage_resource::Storage', 'u256', 'u256', 'u64', 'u8', 'bool', `&mut ${COIN_WAL}`, TX_CONTEXT],
    returns: ['$W::blob::Blob'],
  },
  'system::certify_blob': { params: ['&$W::system::System', '&mut $W::blob::Blob', 'vector<u8>', 'vector<u8>', 'vector<u8>'], returns: [] },
  'system::delete_blob': { params: ['&$W::system::System', '$W::blob::Blob'], returns: ['$W::storage_resource::Storage'] },
  'system::extend_blob': { params: ['&mut $W::system::System', '&mut $W::blob::Blob', 'u32', `&mut ${COIN_WAL}`], returns: [] },
  'blob::add_metadata': { params: ['&mut $W::blob::Blob', '$W::metadata::Metadata'], returns: [] },
  'blob::insert_or_update_metadata_pair': { params: ['&mut $W::blob::Blob', '0x1::string::String', '0x1::string::String'], returns: [] },
  'blob::remove_metadata_pair': { params: ['&mut $W::blob::Blob', '&0x1::string::String'], returns: ['0x1::string::String', '0x1::string::String'] },
  'metadata::new': { params: [], returns: ['$W::metadata::Metadata'] },
  'shared_blob::new': { params: ['$W::blob::Blob', TX_CONTEXT], returns: [] },
  'shared_blob::new_funded': { params: ['$W::blob::Blob', COIN_WAL, TX_CONTEXT], returns: [] },
  'shared_blob::fund': { params: ['&mut $W::shared_blob::SharedBlob', COIN_WAL], returns: [] },
  'shared_blob::extend': { params: ['&mut $W::shared_blob::SharedBlob', '&mut $W::system::System', 'u32', TX_CONTEXT], returns: [] },
  // not run by the double: the SDK only reads its signature to find the WAL type
  'staking::stake_with_pool': { params: ['&mut $W::staking::Staking', COIN_WAL, '0x2::object::ID', TX_CONTEXT], returns: ['$W::staked_wal::StakedWal'] },
};

export const SUI_FUNCTIONS: Record<string, FunctionSig> = {
  'coin::destroy_zero': { typeParams: 1, params: ['0x2::coin::Coin<T0>'], returns: [] },
  'coin::zero': { typeParams: 1, params: [TX_CONTEXT], returns: ['0x2::coin::Coin<T0>'] },
};

export function lookupFunction(w: World, pkg: string, module: string, name: string): FunctionSig | undefined {
  const p = normalizeSuiAddress(pkg);
  if (p === w.walrusPackage) return WALRUS_FUNCTIONS[`${module}::${name}`];
  if (p === normalizeSuiAddress('0x2')) return SUI_FUNCTIONS[`${module}::${name}`];
  return undefined;
}

/** A signature type with the package placeholders and type parameters substituted. */
export function substitute(w: World, sigType: string, typeArgs: string[] = []): string {
  return sigType
    .replaceAll('$WAL', w.walPackage)
    .replaceAll('$W', w.walrusPackage)
    .replace(/\bT(\d+)\b/g, (_, i: string) => typeArgs[Number(i)] ?? `T${i}`);
}

const PRIMITIVES: Record<string, string> = {
  u8: 'U8', u16: 'U16', u32: 'U32', u64: 'U64', u128: 'U128', u256: 'U256', bool: 'Bool', address: 'Address', signer: 'Signer',
};

/** A type of a signature as SuiMoveNormalizedType JSON. */
export function normalizedType(type: string): unknown {
  const t = type.trim();
  if (t.startsWith('&mut ')) return { MutableReference: normalizedType(t.slice(5)) };
  if (t.startsWith('&')) return { Reference: normalizedType(t.slice(1)) };
  if (PRIMITIVES[t]) return PRIMITIVES[t];
  const param = /^T(\d+)$/.exec(t);
  if (param) return { TypeParameter: Number(param[1]) };
  if (t.startsWith('vector<')) return { Vector: normalizedType(t.slice(7, -1)) };
  const lt = t.indexOf('<');
  const head = lt < 0 ? t : t.slice(0, lt);
  const [address, module, name] = head.split('::') as [string, string, string];
  const args: string[] = [];
  if (lt >= 0) {
    let depth = 0;
    let start = lt + 1;
    for (let i = lt + 1; i < t.length - 1; i++) {
      if (t[i] === '<') depth++;
      else if (t[i] === '>') depth--;
      else if (t[i] === ',' && depth === 0) {
        args.push(t.slice(start, i));
        start = i + 1;
      }
    }
    args.push(t.slice(start, t.length - 1));
  }
  return { Struct: { address: normalizeSuiAddress(address), module, name, typeArguments: args.map(normalizedType) } };
}

/** sui_getNormalizedMoveFunction's answer for a known function. */
export function normalizedFunction(w: World, sig: FunctionSig): unknown {
  return {
    visibility: 'Public',
    isEntry: false,
    typeParameters: Array.from({ length: sig.typeParams ?? 0 }, () => ({ abilities: [] })),
    parameters: sig.params.map((p) => normalizedType(substitute(w, p))),
    return: sig.returns.map((r) => normalizedType(substitute(w, r))),
  };
}

// ---- genesis objects ----

/** A UID: @mysten/walrus 1.x's bindings lay UID (and ID) out as the bare address. */
function uidOf(id: string) {
  return id;
}

export function createGenesis(chain: Chain, o: GenesisOptions): World {
  const walrusPackage = randomId(true);
  const walPackage = randomId(true);
  const walType = canonicalType(`${walPackage}::wal::WAL`);
  const world: World = {
    walrusPackage,
    walPackage,
    walType,
    systemObjectId: randomId(),
    stakingObjectId: randomId(),
    nShards: o.nShards,
    nodes: [],
    faucet: new Ed25519Keypair(),
    genesisTimeMs: Date.now(),
  };
  const types = walrusTypes(world);
  const put = (id: string, type: string, contents: Uint8Array, owner: Owner, hasPublicTransfer: boolean) => {
    const init: ObjectInit = {
      id,
      version: 1n,
      owner,
      type,
      hasPublicTransfer,
      contents,
      previousTransaction: chain.genesisDigest,
      storageRebate: storageCost(type, contents),
    };
    chain.put(init);
  };

  // the committee: contiguous shard ranges, as evenly as possible
  const n = o.networkAddresses.length;
  let next = 0;
  world.nodes = o.networkAddresses.map((networkAddress, i) => {
    const count = Math.floor(o.nShards / n) + (i < o.nShards % n ? 1 : 0);
    const shards = Array.from({ length: count }, (_, k) => next + k);
    next += count;
    const blsSecretKey = bls12_381.utils.randomPrivateKey();
    return { nodeId: randomId(), name: `double-node-${i}`, networkAddress, blsSecretKey, blsPublicKey: bls12_381.getPublicKey(blsSecretKey), shards };
  });
  const points = world.nodes.map((node) => bls12_381.G1.ProjectivePoint.fromHex(node.blsPublicKey));
  const total = points.reduce((a, b) => a.add(b));
  const committeeVecMap = { contents: world.nodes.map((node) => ({ key: node.nodeId, value: node.shards })) };

  // System and its SystemStateInnerV1
  put(world.systemObjectId, types.system, System.serialize({ id: uidOf(world.systemObjectId), version: SYSTEM_VERSION, package_id: walrusPackage, new_package_id: null }).toBytes(), { Shared: { initialSharedVersion: '1' } }, false);
  const L = o.maxEpochsAhead;
  const current = o.epoch % L;
  const ring = Array.from({ length: L }, (_, index) => ({
    epoch: o.epoch + ((index - current + L) % L),
    used_capacity: 0n,
    rewards_to_distribute: { value: 0n },
  }));
  const inner = {
    committee: {
      members: world.nodes.map((node, i) => ({ public_key: { bytes: [...points[i]!.toRawBytes(false)] }, weight: node.shards.length, node_id: node.nodeId })),
      n_shards: o.nShards,
      epoch: o.epoch,
      total_aggregated_key: { bytes: [...total.toRawBytes(true)] },
    },
    total_capacity_size: o.totalCapacity,
    used_capacity_size: 0n,
    storage_price_per_unit_size: o.storagePricePerUnit,
    write_price_per_unit_size: o.writePricePerUnit,
    future_accounting: { current_index: current, length: L, ring_buffer: ring },
    event_blob_certification_state: { latest_certified_blob: null, aggregate_weight_per_blob: { contents: [] } },
    deny_list_sizes: { id: uidOf(randomId()) },
  };
  const systemFieldId = deriveDynamicFieldID(world.systemObjectId, 'u64', bcs.u64().serialize(SYSTEM_VERSION).toBytes());
  put(systemFieldId, types.systemField, Field(bcs.u64(), SystemStateInnerV1).serialize({ id: systemFieldId, name: SYSTEM_VERSION, value: inner }).toBytes(), { ObjectOwner: world.systemObjectId }, false);

  // Staking, its StakingInnerV1 and the staking pools (one per node, in the pools ObjectTable)
  put(world.stakingObjectId, types.staking, Staking.serialize({ id: uidOf(world.stakingObjectId), version: STAKING_VERSION, package_id: walrusPackage, new_package_id: null }).toBytes(), { Shared: { initialSharedVersion: '1' } }, false);
  const epochDuration = 14n * 24n * 3600n * 1000n;
  const poolsTableId = randomId();
  const stakingInner = {
    n_shards: o.nShards,
    epoch_duration: epochDuration,
    first_epoch_start: BigInt(world.genesisTimeMs) - BigInt(o.epoch) * epochDuration,
    pools: { id: uidOf(poolsTableId), size: BigInt(n) },
    epoch: o.epoch,
    active_set: { id: uidOf(randomId()) },
    next_committee: null,
    committee: [committeeVecMap],
    previous_committee: [o.epoch > 0 ? committeeVecMap : { contents: [] }],
    next_epoch_params: null,
    epoch_state: { EpochChangeDone: BigInt(world.genesisTimeMs) },
    next_epoch_public_keys: { id: uidOf(randomId()) },
  };
  const stakingFieldId = deriveDynamicFieldID(world.stakingObjectId, 'u64', bcs.u64().serialize(STAKING_VERSION).toBytes());
  put(stakingFieldId, types.stakingField, Field(bcs.u64(), StakingInnerV1).serialize({ id: stakingFieldId, name: STAKING_VERSION, value: stakingInner }).toBytes(), { ObjectOwner: world.stakingObjectId }, false);
  const stake = 1_000_000_000_000_000n;
  for (const node of world.nodes) {
    const wrapperId = deriveDynamicFieldID(poolsTableId, '0x2::dynamic_object_field::Wrapper<0x2::object::ID>', bcs.Address.serialize(node.nodeId).toBytes());
    put(wrapperId, types.poolField, Field(bcs.Address, bcs.Address).serialize({ id: wrapperId, name: node.nodeId, value: node.nodeId }).toBytes(), { ObjectOwner: poolsTableId }, false);
    const emptyPending = [{ contents: [] }];
    const pool = {
      id: uidOf(node.nodeId),
      state: { Active: true },
      voting_params: { storage_price: o.storagePricePerUnit, write_price: o.writePricePerUnit, node_capacity: o.totalCapacity / BigInt(n) },
      node_info: {
        name: node.name,
        node_id: node.nodeId,
        network_address: node.networkAddress,
        public_key: { bytes: [...node.blsPublicKey] },
        next_epoch_public_key: null,
        network_public_key: [...new Ed25519Keypair().getPublicKey().toRawBytes()],
        metadata: { id: uidOf(randomId()) },
      },
      activation_epoch: 0,
      latest_epoch: o.epoch,
      wal_balance: stake,
      num_shares: stake,
      pending_shares_withdraw: emptyPending,
      pre_active_withdrawals: emptyPending,
      pending_commission_rate: emptyPending,
      commission_rate: 0,
      exchange_rates: { id: uidOf(randomId()), size: 0n },
      pending_stake: emptyPending,
      rewards_pool: { value: 0n },
      commission: { value: 0n },
      commission_receiver: { Address: world.faucet.toSuiAddress() },
      governance_authorized: { Address: world.faucet.toSuiAddress() },
      extra_fields: { id: uidOf(randomId()), size: 0n },
    };
    put(node.nodeId, types.stakingPool, StakingPool.serialize(pool).toBytes(), { ObjectOwner: wrapperId }, true);
  }

  // the faucet's SUI and WAL
  const faucet = world.faucet.toSuiAddress();
  for (const [type, amount] of [[types.suiCoin, 1_000_000_000_000_000_000n], [types.walCoin, 1_000_000_000_000_000_000n]] as const) {
    const id = randomId();
    put(id, type, Coin.serialize({ id, balance: { value: amount } }).toBytes(), { AddressOwner: faucet }, true);
  }
  return world;
}

/**
 * An epoch change as the contracts make it, with the same committee one epoch on (no shard moves):
 * system_state_inner.move advance_epoch (the committee's epoch; storage_accounting.move
 * ring_pop_expand: the ending epoch's slot comes back as the last one, epoch + length; the used
 * capacity is the new epoch's) and staking_inner.move (epoch, previous_committee, EpochChangeDone).
 * The System and Staking objects get a new version, as a transaction touching them would give them.
 */
export function advanceEpoch(chain: Chain, world: World): number {
  const edit = (parentId: string, fieldVersion: number, codec: BcsType<any, any>, change: (inner: any) => void) => {
    const fieldId = deriveDynamicFieldID(parentId, 'u64', bcs.u64().serialize(fieldVersion).toBytes());
    const parent = chain.get(parentId)!;
    const field = chain.get(fieldId)!;
    const version = (parent.version > field.version ? parent.version : field.version) + 1n;
    const value = Field(bcs.u64(), codec).parse(field.contents);
    change(value.value);
    chain.put({ ...field, version, contents: Field(bcs.u64(), codec).serialize(value).toBytes() });
    chain.put({ ...parent, version });
  };
  let epoch = 0;
  edit(world.systemObjectId, SYSTEM_VERSION, SystemStateInnerV1, (inner) => {
    epoch = inner.committee.epoch + 1;
    inner.committee.epoch = epoch;
    const accounting = inner.future_accounting;
    const ended = accounting.ring_buffer[accounting.current_index];
    Object.assign(ended, { epoch: epoch - 1 + accounting.length, used_capacity: 0n, rewards_to_distribute: { value: 0n } });
    accounting.current_index = (accounting.current_index + 1) % accounting.length;
    inner.used_capacity_size = accounting.ring_buffer[accounting.current_index].used_capacity;
  });
  edit(world.stakingObjectId, STAKING_VERSION, StakingInnerV1, (inner) => {
    inner.epoch = epoch;
    inner.previous_committee = inner.committee;
    inner.epoch_state = { EpochChangeDone: BigInt(Date.now()) };
  });
  return epoch;
}
