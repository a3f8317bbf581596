// Sui formats the TypeScript SDK does not define, written from MystenLabs/sui:
// - crates/sui-types/src/object.rs: ObjectInner { data: Data::Move(MoveObject { type_: MoveObjectType,
//   has_public_transfer, version, contents }), owner, previous_transaction, storage_rebate }; its
//   digest is Blake2b-256 over "Object::" ‖ BCS (the BcsSignable convention: "<TypeName>::" ‖ BCS).
// - crates/sui-types/src/base_types.rs: MoveObjectType_ { Other(StructTag), GasCoin, StakedSui,
//   Coin(TypeTag) }; ObjectID::derive_id = Blake2b-256(0xf1 ‖ tx digest ‖ creation count u64 LE).
// - crates/sui-types/src/event.rs, effects/mod.rs: Event { package_id, transaction_module, sender,
//   type_, contents }, TransactionEvents { data } (digest over "TransactionEvents::" ‖ BCS).
// - crates/sui-types/src/digests.rs: the marker digests of deleted (99 × 32) and wrapped (88 × 32)
//   objects in JSON effects.
// - move-core-types language_storage.rs: a StructTag displays as 0x<short address>::m::N<A, B>,
//   which is how the JSON-RPC prints object, coin and event types.
// The rest (Owner, StructTag, TypeTag, ObjectDigest, TransactionEffects …) comes from @mysten/sui/bcs.

import { blake2b } from '@noble/hashes/blake2b';
import { bcs, TypeTagSerializer, type TypeTag } from '@mysten/sui/bcs';
import { fromBase58, normalizeSuiAddress, toBase58, toHex } from '@mysten/sui/utils';

export const SUI_TYPE = canonicalType('0x2::sui::SUI');

/** Blake2b-256 over "<name>::" ‖ bytes. */
export function hashTyped(name: string, bytes: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`${name}::`);
  const data = new Uint8Array(prefix.length + bytes.length);
  data.set(prefix);
  data.set(bytes, prefix.length);
  return blake2b(data, { dkLen: 32 });
}

export function blake2b256(bytes: Uint8Array): Uint8Array {
  return blake2b(bytes, { dkLen: 32 });
}

/** ObjectID::derive_id(tx digest, count). */
export function deriveObjectId(txDigest: string, count: number): string {
  const data = new Uint8Array(1 + 32 + 8);
  data[0] = 0xf1;
  data.set(fromBase58(txDigest), 1);
  new DataView(data.buffer).setBigUint64(33, BigInt(count), true);
  return normalizeSuiAddress(toHex(blake2b256(data)));
}

function printTag(tag: TypeTag, short: boolean): string {
  if (typeof tag !== 'object' || tag === null) throw new Error(`bad type tag ${String(tag)}`);
  if ('vector' in tag) return `vector<${printTag(tag.vector, short)}>`;
  if ('struct' in tag) {
    const s = tag.struct;
    const address = short ? `0x${s.address.replace(/^0x/, '').replace(/^0+(?=.)/, '')}` : normalizeSuiAddress(s.address);
    const params = s.typeParams.length ? `<${s.typeParams.map((t) => printTag(t, short)).join(', ')}>` : '';
    return `${address}::${s.module}::${s.name}${params}`;
  }
  return Object.keys(tag)[0]!;
}

/** The double's internal spelling of a type: full-length addresses, ", " between type parameters. */
export function canonicalType(type: string): string {
  return printTag(TypeTagSerializer.parseFromStr(type, true), false);
}

/** The JSON-RPC spelling (StructTag's Display): short addresses. */
export function displayType(type: string): string {
  return printTag(TypeTagSerializer.parseFromStr(type, true), true);
}

/** `0x2::coin::Coin<T>` → T (canonical), or null. */
export function coinTypeOf(type: string): string | null {
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (typeof tag !== 'object' || !('struct' in tag)) return null;
  const s = tag.struct;
  if (normalizeSuiAddress(s.address) !== normalizeSuiAddress('0x2') || s.module !== 'coin' || s.name !== 'Coin') return null;
  return printTag(s.typeParams[0]!, false);
}

export const Coin = bcs.struct('Coin', { id: bcs.Address, balance: bcs.struct('Balance', { value: bcs.u64() }) });

const MoveObjectType = bcs.enum('MoveObjectType', {
  Other: bcs.StructTag,
  GasCoin: null,
  StakedSui: null,
  Coin: bcs.TypeTag,
});

const ObjectInner = bcs.struct('ObjectInner', {
  // Data::Move is variant 0 (Data::Package, variant 1, is not held by the double)
  data: bcs.enum('Data', {
    Move: bcs.struct('MoveObject', {
      type: MoveObjectType,
      hasPublicTransfer: bcs.bool(),
      version: bcs.u64(),
      contents: bcs.byteVector(),
    }),
  }),
  owner: bcs.Owner,
  previousTransaction: bcs.ObjectDigest,
  storageRebate: bcs.u64(),
});

export type Owner =
  | { AddressOwner: string }
  | { ObjectOwner: string }
  | { Shared: { initialSharedVersion: string } }
  | { Immutable: true };

export interface ObjectFields {
  type: string;
  hasPublicTransfer: boolean;
  version: bigint;
  contents: Uint8Array;
  owner: Owner;
  previousTransaction: string;
  storageRebate: bigint;
}

function moveObjectType(type: string) {
  if (type === canonicalType(`0x2::coin::Coin<${SUI_TYPE}>`)) return { GasCoin: true as const };
  const coin = coinTypeOf(type);
  if (coin) return { Coin: coin };
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (typeof tag !== 'object' || !('struct' in tag)) throw new Error(`not a struct type: ${type}`);
  return { Other: tag.struct };
}

/** The BCS bytes of the Object (ObjectInner), as hashed for the object digest. */
export function objectBcs(o: ObjectFields): Uint8Array {
  return ObjectInner.serialize({
    data: {
      Move: { type: moveObjectType(o.type), hasPublicTransfer: o.hasPublicTransfer, version: o.version, contents: o.contents },
    },
    owner: o.owner,
    previousTransaction: o.previousTransaction,
    storageRebate: o.storageRebate,
  }).toBytes();
}

export function objectDigest(o: ObjectFields): string {
  return toBase58(hashTyped('Object', objectBcs(o)));
}

/** MoveObject::object_size_for_gas_metering: contents + BCS(type) + has_public_transfer + version. */
export function objectSizeForGas(o: Pick<ObjectFields, 'type' | 'contents'>): number {
  return o.contents.length + MoveObjectType.serialize(moveObjectType(o.type)).toBytes().length + 1 + 8;
}

export const Event = bcs.struct('Event', {
  packageId: bcs.Address,
  transactionModule: bcs.string(),
  sender: bcs.Address,
  type: bcs.StructTag,
  contents: bcs.byteVector(),
});

export const TransactionEvents = bcs.struct('TransactionEvents', { data: bcs.vector(Event) });

export function structTagOf(type: string) {
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (typeof tag !== 'object' || !('struct' in tag)) throw new Error(`not a struct type: ${type}`);
  return tag.struct;
}

export const DELETED_DIGEST = toBase58(new Uint8Array(32).fill(99));
export const WRAPPED_DIGEST = toBase58(new Uint8Array(32).fill(88));

/** Owner as the JSON-RPC renders it. */
export function ownerJson(owner: Owner): unknown {
  if ('AddressOwner' in owner) return { AddressOwner: owner.AddressOwner };
  if ('ObjectOwner' in owner) return { ObjectOwner: owner.ObjectOwner };
  if ('Shared' in owner) return { Shared: { initial_shared_version: Number(owner.Shared.initialSharedVersion) } };
  return 'Immutable';
}
