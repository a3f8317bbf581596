// The Move calls of the double, with the semantics and abort codes of the Walrus contracts and
// of the Sui framework functions the SDK's transactions use; sui-execution.ts runs the
// transactions around them. Facts from MystenLabs/walrus mainnet-contracts/walrus/sources:
// - system.move, system/system_state_inner.move: reserve_space (epochs_ahead in 1..=max, storage
//   paid per epoch = storage_price_per_unit_size × ⌈size / 1 MiB⌉ into the future accounting,
//   capacity accounted), register_blob (blob::new, then the write price = write_price_per_unit_size
//   × ⌈encoded size / 1 MiB⌉), certify_blob, delete_blob, extend_blob.
// - system/blob.move: new (resource bounds, encoded size ≤ storage, blob id derivation, the
//   BlobRegistered event), certify_with_certified_msg, delete (BlobDeleted), the metadata dynamic
//   field b"metadata" and its functions; system/metadata.move; system/shared_blob.move.
// - system/bls_aggregate.move: verify_certificate_and_weight (bitmap, weight of the signers,
//   quorum 3w ≥ 2n + 1, aggregate key = total − non-signers, min_pk verification);
//   system/messages.move: the certified message header (intent type, version 0, app id 3, epoch)
//   and BlobPersistenceType; system/storage_accounting.move; system/events.move.
// - MystenLabs/sui sui-framework: coin::destroy_zero / coin::zero, balance::split (ENotEnough = 2),
//   balance::destroy_zero (ENonZero = 0), vec_map (EKeyDoesNotExist = 1).

import { bls12_381 } from '@noble/curves/bls12-381';
import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, normalizeSuiAddress } from '@mysten/sui/utils';
import type { Chain, TxRecord } from './chain.js';
import { SYSTEM_VERSION, type World } from './genesis.js';
import { BlobCertified, BlobDeleted, BlobRegistered } from './sdk.js';
import { runTransaction, type ExecuteOptions } from './sui-execution.js';
import { moveAbort, obj, STRING_TYPE, SUI_FRAMEWORK, type Live, type MoveFn, type Session } from './sui-session.js';
import { deriveBlobId, encodedBlobLength, RS2, storageUnits } from './walrus-core.js';

export { RejectedTransaction } from './sui-session.js';

// blob.move METADATA_DF: the name b"metadata" (a vector<u8>; METADATA_KEY is its BCS)
const METADATA_NAME = new TextEncoder().encode('metadata');
const METADATA_KEY = bcs.byteVector().serialize(METADATA_NAME).toBytes();

function balanceSplit(coin: Live, amount: bigint): void {
  const value = BigInt(coin.value.balance.value);
  if (value < amount) throw moveAbort(SUI_FRAMEWORK, 'balance', 'split', 2);
  coin.value.balance.value = value - amount;
}

function systemInner(s: Session, system: Live, mutable: boolean): any {
  if (Number(system.value.version) !== SYSTEM_VERSION) s.abort('system', 'inner', 1);
  const fieldId = deriveDynamicFieldID(system.id, 'u64', bcs.u64().serialize(system.value.version).toBytes());
  const field = s.child(system.id, fieldId, mutable);
  if (!field) throw moveAbort(SUI_FRAMEWORK, 'dynamic_field', 'borrow_child_object', 1);
  return field.value.value;
}

function ring(s: Session, inner: any, i: number): any {
  const buffer = inner.future_accounting;
  if (i >= buffer.length) s.abort('storage_accounting', 'ring_lookup_mut', 0);
  return buffer.ring_buffer[(i + buffer.current_index) % buffer.length];
}

function processStoragePayments(s: Session, inner: any, size: bigint, start: number, end: number, payment: Live): void {
  const due = BigInt(inner.storage_price_per_unit_size) * storageUnits(size);
  for (let i = start; i < end; i++) {
    balanceSplit(payment, due);
    const account = ring(s, inner, i);
    account.rewards_to_distribute.value = BigInt(account.rewards_to_distribute.value) + due;
  }
}

function reserveWithoutPayment(s: Session, inner: any, amount: bigint, start: number, end: number): Live {
  const L = inner.future_accounting.length;
  if (!(end - start > 0) || end > L) s.abort('system_state_inner', 'reserve_space_without_payment', 2);
  if (amount <= 0n) s.abort('system_state_inner', 'reserve_space_without_payment', 11);
  for (let i = start; i < end; i++) {
    const account = ring(s, inner, i);
    const used = BigInt(account.used_capacity) + amount;
    account.used_capacity = used;
    if (i === 0) inner.used_capacity_size = used;
    if (used > BigInt(inner.total_capacity_size)) s.abort('system_state_inner', 'reserve_space_without_payment', 1);
  }
  const epoch = inner.committee.epoch as number;
  const id = s.fresh();
  return s.create(s.types.storage, { id, start_epoch: epoch + start, end_epoch: epoch + end, storage_size: amount }, id);
}

function emitCertified(s: Session, blob: any, isExtension: boolean): void {
  const value = {
    epoch: blob.certified_epoch,
    blob_id: blob.blob_id,
    end_epoch: blob.storage.end_epoch,
    deletable: blob.deletable,
    object_id: blob.id,
    is_extension: isExtension,
  };
  s.emit(`${s.world.walrusPackage}::events::BlobCertified`, BlobCertified, value, { ...value, blob_id: String(value.blob_id) });
}

function share(s: Session, blob: Live, funds: bigint): void {
  const id = s.fresh();
  blob.state = 'wrapped';
  const shared = s.create(s.types.sharedBlob, { id, blob: blob.value, funds: { value: funds } }, id);
  shared.owner = { Shared: { initialSharedVersion: String(s.lamport) } };
}

function metadataFieldId(blobId: string): string {
  return deriveDynamicFieldID(blobId, 'vector<u8>', METADATA_KEY);
}

function addMetadata(s: Session, blob: Live, metadata: any): void {
  const fieldId = metadataFieldId(blob.id);
  if (s.child(blob.id, fieldId, false)) s.abort('blob', 'add_metadata', 7);
  const existing = s.live.get(fieldId);
  if (existing) {
    // removed earlier in this transaction and added again
    Object.assign(existing, { value: { id: fieldId, name: METADATA_NAME, value: metadata }, owner: { ObjectOwner: blob.id }, state: 'live', written: true });
    return;
  }
  const field = s.create(s.types.metadataField, { id: fieldId, name: METADATA_NAME, value: metadata }, fieldId);
  field.owner = { ObjectOwner: blob.id };
}

const WALRUS: Record<string, MoveFn> = {
  'system::reserve_space'(s, [system, amount, epochsAhead, payment]) {
    const inner = systemInner(s, system, true);
    const L = inner.future_accounting.length as number;
    if (!(epochsAhead > 0) || epochsAhead > L) s.abort('system_state_inner', 'reserve_space', 2);
    // reserve_space_for_epochs(amount, epoch, epoch + epochs_ahead): start offset 0
    processStoragePayments(s, inner, amount, 0, epochsAhead, payment);
    return [obj(reserveWithoutPayment(s, inner, amount, 0, epochsAhead))];
  },

  'system::register_blob'(s, [system, storage, blobId, rootHash, size, encodingType, deletable, payment]) {
    const inner = systemInner(s, system, true);
    const epoch = inner.committee.epoch as number;
    const nShards = inner.committee.n_shards as number;
    // blob::new
    const id = s.fresh();
    const st = storage.value;
    if (epoch < st.start_epoch || epoch >= st.end_epoch) s.abort('blob', 'new', 2);
    if (encodingType !== RS2) throw moveAbort(s.world.walrusPackage, 'encoding', 'encoded_blob_length', 0);
    const encoded = encodedBlobLength(size, nShards);
    if (encoded > BigInt(st.storage_size)) s.abort('blob', 'new', 3);
    if (deriveBlobId(rootHash, encodingType, size) !== blobId) s.abort('blob', 'new', 6);
    const registered = { epoch, blob_id: blobId, size, encoding_type: encodingType, end_epoch: st.end_epoch, deletable, object_id: id };
    s.emit(`${s.world.walrusPackage}::events::BlobRegistered`, BlobRegistered, registered, { ...registered, blob_id: String(blobId), size: String(size) });
    storage.state = 'wrapped';
    const blob = s.create(s.types.blob, { id, registered_epoch: epoch, blob_id: blobId, size, encoding_type: encodingType, certified_epoch: null, storage: st, deletable }, id);
    // the write payment
    const price = BigInt(inner.write_price_per_unit_size) * storageUnits(encoded);
    balanceSplit(payment, price);
    const account = ring(s, inner, 0);
    account.rewards_to_distribute.value = BigInt(account.rewards_to_distribute.value) + price;
    return [obj(blob)];
  },

  'system::certify_blob'(s, [system, blob, signature, bitmap, message]) {
    const inner = systemInner(s, system, false);
    const committee = inner.committee;
    verifyCertificate(s, committee, signature, bitmap, message);
    // messages::new_certified_message
    if (message.length < 7) throw moveAbort(SUI_FRAMEWORK, 'bcs', 'peel_u8', 0);
    const [intentType, intentVersion, appId] = message;
    if (intentVersion !== 0) s.abort('messages', 'new_certified_message', 3);
    if (appId !== 3) s.abort('messages', 'new_certified_message', 0);
    const certEpoch = new DataView(message.buffer, message.byteOffset).getUint32(3, true);
    if (certEpoch !== committee.epoch) s.abort('messages', 'new_certified_message', 1);
    if (certEpoch !== committee.epoch) s.abort('system_state_inner', 'certify_blob', 3);
    // messages::certify_blob_message
    if (intentType !== 1) s.abort('messages', 'certify_blob_message', 2);
    const body = message.subarray(7);
    if (body.length < 33) throw moveAbort(SUI_FRAMEWORK, 'bcs', 'peel_u256', 0);
    const certifiedId = BigInt(bcs.u256().parse(body.subarray(0, 32)));
    let deletableObject: string | null = null;
    if (body[32] === 1) {
      if (body.length < 65) throw moveAbort(SUI_FRAMEWORK, 'bcs', 'peel_address', 0);
      deletableObject = bcs.Address.parse(body.subarray(33, 65));
    } else if (body[32] !== 0) s.abort('messages', 'peel_blob_persistence_type', 4);
    // blob::certify_with_certified_msg
    const b = blob.value;
    const epoch = committee.epoch as number;
    if (BigInt(b.blob_id) !== certifiedId) s.abort('blob', 'certify_with_certified_msg', 6);
    if (b.certified_epoch !== null) s.abort('blob', 'certify_with_certified_msg', 5);
    if (!(epoch < b.storage.end_epoch)) s.abort('blob', 'certify_with_certified_msg', 2);
    if (b.deletable !== (deletableObject !== null)) s.abort('blob', 'certify_with_certified_msg', 9);
    if (b.deletable && deletableObject !== blob.id) s.abort('blob', 'certify_with_certified_msg', 10);
    b.certified_epoch = epoch;
    blob.written = true;
    emitCertified(s, b, false);
    return [];
  },

  'system::delete_blob'(s, [system, blob]) {
    const inner = systemInner(s, system, false);
    const epoch = inner.committee.epoch as number;
    const field = s.child(blob.id, metadataFieldId(blob.id), true);
    if (field) field.state = 'deleted';
    const b = blob.value;
    if (!b.deletable) s.abort('blob', 'delete', 1);
    if (!(b.storage.end_epoch > epoch)) s.abort('blob', 'delete', 2);
    blob.state = 'deleted';
    const deleted = { epoch, blob_id: b.blob_id, end_epoch: b.storage.end_epoch, object_id: blob.id, was_certified: b.certified_epoch !== null };
    s.emit(`${s.world.walrusPackage}::events::BlobDeleted`, BlobDeleted, deleted, { ...deleted, blob_id: String(deleted.blob_id) });
    // the Storage wrapped in the Blob comes out again
    const storageId = normalizeSuiAddress(b.storage.id);
    const storage = s.live.get(storageId);
    if (storage) Object.assign(storage, { value: b.storage, state: 'live', owner: null });
    else s.live.set(storageId, { id: storageId, type: s.types.storage, value: b.storage, owner: null, state: 'live', mutable: true, input: false, written: true });
    return [{ k: 'obj', id: storageId }];
  },

  'system::extend_blob'(s, [system, blob, extended, payment]) {
    const inner = systemInner(s, system, true);
    const epoch = inner.committee.epoch as number;
    const b = blob.value;
    if (b.certified_epoch === null) s.abort('blob', 'assert_certified_not_expired', 0);
    if (!(epoch < b.storage.end_epoch)) s.abort('blob', 'assert_certified_not_expired', 2);
    const start = b.storage.end_epoch - epoch;
    const end = start + extended;
    if (!(extended > 0) || end > inner.future_accounting.length) s.abort('system_state_inner', 'extend_blob', 2);
    const size = BigInt(b.storage.storage_size);
    processStoragePayments(s, inner, size, start, end, payment);
    for (let i = start; i < end; i++) {
      const account = ring(s, inner, i);
      account.used_capacity = BigInt(account.used_capacity) + size;
      if (BigInt(account.used_capacity) > BigInt(inner.total_capacity_size)) s.abort('system_state_inner', 'extend_blob', 1);
    }
    b.storage.end_epoch += extended;
    blob.written = true;
    emitCertified(s, b, true);
    return [];
  },

  'metadata::new'() {
    return [{ k: 'val', type: '', value: { metadata: { contents: [] } } }];
  },

  'blob::add_metadata'(s, [blob, metadata]) {
    addMetadata(s, blob, metadata);
    blob.written = true;
    return [];
  },

  'blob::insert_or_update_metadata_pair'(s, [blob, key, value]) {
    const fieldId = metadataFieldId(blob.id);
    if (!s.child(blob.id, fieldId, false)) addMetadata(s, blob, { metadata: { contents: [] } });
    const field = s.child(blob.id, fieldId, true)!;
    const contents = field.value.value.metadata.contents as { key: string; value: string }[];
    const at = contents.findIndex((e) => e.key === key);
    if (at >= 0) contents.splice(at, 1);
    contents.push({ key, value });
    blob.written = true;
    return [];
  },

  // shared_blob.move: SharedBlob { id, blob, funds: Balance<WAL> }, shared at creation
  'shared_blob::new'(s, [blob]) {
    share(s, blob, 0n);
    return [];
  },

  'shared_blob::new_funded'(s, [blob, funds]) {
    funds.state = 'deleted';
    share(s, blob, BigInt(funds.value.balance.value));
    return [];
  },

  'shared_blob::fund'(_s, [shared, coin]) {
    coin.state = 'deleted';
    shared.value.funds.value = BigInt(shared.value.funds.value) + BigInt(coin.value.balance.value);
    return [];
  },

  'shared_blob::extend'(s, [shared, system, extended]) {
    // funds.withdraw_all().into_coin(ctx): a coin that lives only in this call
    const id = s.fresh();
    const coin = s.create(s.types.walCoin, { id, balance: { value: BigInt(shared.value.funds.value) } }, id);
    shared.value.funds.value = 0n;
    const inner: Live = { id: shared.value.blob.id, type: s.types.blob, value: shared.value.blob, owner: { ObjectOwner: shared.id }, state: 'live', mutable: true, input: false, written: true };
    WALRUS['system::extend_blob']!(s, [system, inner, extended, coin], []);
    shared.value.funds.value = BigInt(coin.value.balance.value);
    coin.state = 'deleted';
    return [];
  },

  'blob::remove_metadata_pair'(s, [blob, key]) {
    const field = s.child(blob.id, metadataFieldId(blob.id), true);
    if (!field) return s.abort('blob', 'metadata', 8);
    const contents = field.value.value.metadata.contents as { key: string; value: string }[];
    const at = contents.findIndex((e) => e.key === key);
    if (at < 0) throw moveAbort(SUI_FRAMEWORK, 'vec_map', 'get_idx', 1);
    const [entry] = contents.splice(at, 1);
    blob.written = true;
    return [
      { k: 'val', type: STRING_TYPE, value: entry!.key },
      { k: 'val', type: STRING_TYPE, value: entry!.value },
    ];
  },
};

const FRAMEWORK: Record<string, MoveFn> = {
  'coin::destroy_zero'(_s, [coin]) {
    if (BigInt(coin.value.balance.value) !== 0n) throw moveAbort(SUI_FRAMEWORK, 'balance', 'destroy_zero', 0);
    coin.state = 'deleted';
    return [];
  },
  'coin::zero'(s, _args, [type]) {
    const id = s.fresh();
    return [obj(s.create(`0x2::coin::Coin<${type}>`, { id, balance: { value: 0n } }, id))];
  },
};

/** bls_aggregate::verify_certificate_and_weight with RequiredWeight::Quorum. */
function verifyCertificate(s: Session, committee: any, signature: Uint8Array, bitmap: Uint8Array, message: Uint8Array): number {
  const members = committee.members as { public_key: { bytes: number[] }; weight: number }[];
  const maxLen = Math.ceil(members.length / 8);
  if (bitmap.length > maxLen) s.abort('bls_aggregate', 'verify_certificate_and_weight', 0);
  let nonSignerWeight = 0;
  let nonSignerKeys = bls12_381.G1.ProjectivePoint.ZERO;
  for (let i = 0; i < maxLen; i++) {
    const byte = i < bitmap.length ? bitmap[i]! : 0;
    for (let bit = 0; bit < 8; bit++) {
      const index = i * 8 + bit;
      const isSigner = ((byte >> bit) & 1) === 1;
      if (index >= members.length) {
        if (isSigner) s.abort('bls_aggregate', 'verify_certificate_and_weight', 0);
        continue;
      }
      if (!isSigner) {
        nonSignerWeight += members[index]!.weight;
        nonSignerKeys = nonSignerKeys.add(bls12_381.G1.ProjectivePoint.fromHex(new Uint8Array(members[index]!.public_key.bytes)));
      }
    }
  }
  const weight = committee.n_shards - nonSignerWeight;
  if (!(3 * weight >= 2 * committee.n_shards + 1)) s.abort('bls_aggregate', 'verify_certificate_and_weight', 2);
  const aggregate = bls12_381.G1.ProjectivePoint.fromHex(new Uint8Array(committee.total_aggregated_key.bytes)).subtract(nonSignerKeys);
  let valid = false;
  try {
    valid = bls12_381.verify(signature, message, aggregate.toRawBytes(true));
  } catch {
    valid = false;
  }
  if (!valid) s.abort('bls_aggregate', 'verify_certificate_and_weight', 1);
  return weight;
}

function lookupCall(world: World): (pkg: string, module: string, name: string) => MoveFn | undefined {
  return (pkg, module, name) => {
    const p = normalizeSuiAddress(pkg);
    if (p === world.walrusPackage) return WALRUS[`${module}::${name}`];
    if (p === SUI_FRAMEWORK) return FRAMEWORK[`${module}::${name}`];
    return undefined;
  };
}

/** Executes (or, with dryRun, simulates) a signed transaction; RejectedTransaction if Sui would refuse it. */
export function executeTransaction(chain: Chain, world: World, txBytes: Uint8Array, opts: ExecuteOptions): Promise<TxRecord> {
  return runTransaction(chain, world, txBytes, opts, lookupCall(world));
}
