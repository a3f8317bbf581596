// The ledger of the double: live objects (id, version, digest, owner, Move type, BCS contents,
// storage rebate), the last reference of removed objects, executed transactions and their events
// by digest, the Sui epoch and gas constants. Object digests are computed the way Sui does
// (sui-formats.ts); versions are Lamport versions assigned by the executor (walrus-calls.ts).
// Facts from MystenLabs/sui: crates/sui-types/src/object.rs (Object), effects/mod.rs,
// crates/sui-protocol-config (storage_gas_price 76, obj_data_cost_refundable 100,
// storage_rebate_rate 9900 bps, min computation 1000 units).

import { normalizeSuiAddress } from '@mysten/sui/utils';
import { canonicalType, coinTypeOf, objectDigest, objectSizeForGas, type Owner } from './sui-formats.js';

export const GAS = {
  referenceGasPrice: 1000n,
  storagePrice: 76n,
  objDataCostRefundable: 100n,
  storageRebateRateBps: 9900n,
  minComputationUnits: 1000n,
  maxGasBudget: 50_000_000_000n,
};

export interface SuiObject {
  id: string;
  version: bigint;
  digest: string;
  owner: Owner;
  /** canonical type (full addresses) */
  type: string;
  hasPublicTransfer: boolean;
  contents: Uint8Array;
  previousTransaction: string;
  storageRebate: bigint;
}

export interface EventRecord {
  txDigest: string;
  eventSeq: number;
  packageId: string;
  module: string;
  sender: string;
  type: string;
  bcs: Uint8Array;
  parsedJson: Record<string, unknown>;
  timestampMs: number;
}

export interface TxRecord {
  digest: string;
  /** BCS TransactionData */
  txBytes: Uint8Array;
  /** base64 BCS UserSignatures */
  signatures: string[];
  effectsBcs: Uint8Array;
  /** the ExecutionFailureStatus (BCS shape), its command and text, when the transaction failed */
  failure: { status: Record<string, unknown>; command: number | null; description: string } | null;
  /** the Move type of every changed object, by id */
  objectTypes: Record<string, string>;
  events: EventRecord[];
  balanceChanges: { address: string; coin_type: string; amount: string }[];
  timestampMs: number;
  checkpoint: number;
  success: boolean;
}

export type ObjectInit = Omit<SuiObject, 'digest'>;

export class Chain {
  readonly objects = new Map<string, SuiObject>();
  /** last reference of objects that were deleted or wrapped */
  readonly removed = new Map<string, { version: bigint; digest: string }>();
  readonly transactions = new Map<string, TxRecord>();
  private readonly commitListeners: ((tx: TxRecord) => void)[] = [];
  suiEpoch = 1n;
  checkpoint = 0;

  constructor(readonly genesisDigest: string) {}

  get(id: string): SuiObject | undefined {
    return this.objects.get(normalizeSuiAddress(id));
  }

  /** Writes an object, computing its digest. */
  put(init: ObjectInit): SuiObject {
    const obj: SuiObject = { ...init, id: normalizeSuiAddress(init.id), type: canonicalType(init.type), digest: '' };
    obj.digest = objectDigest(obj);
    this.objects.set(obj.id, obj);
    this.removed.delete(obj.id);
    return obj;
  }

  /** Writes an object whose digest is already computed (by the executor). */
  write(obj: SuiObject): void {
    this.objects.set(obj.id, obj);
    this.removed.delete(obj.id);
  }

  remove(id: string, version: bigint, digest: string): void {
    this.objects.delete(id);
    this.removed.set(id, { version, digest });
  }

  ownedBy(address: string): SuiObject[] {
    const owner = normalizeSuiAddress(address);
    return [...this.objects.values()].filter((o) => 'AddressOwner' in o.owner && o.owner.AddressOwner === owner);
  }

  /** Coins of `coinType` owned by `address`, with their balances, ordered by object id. */
  coins(address: string, coinType: string): { object: SuiObject; balance: bigint }[] {
    const want = canonicalType(coinType);
    return this.ownedBy(address)
      .filter((o) => coinTypeOf(o.type) === want)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((object) => ({ object, balance: coinBalance(object) }));
  }

  record(tx: TxRecord): void {
    this.transactions.set(tx.digest, tx);
    for (const listener of this.commitListeners) listener(tx);
  }

  onCommit(listener: (tx: TxRecord) => void): void {
    this.commitListeners.push(listener);
  }
}

/** The balance of a Coin<T> (its contents are UID ‖ u64). */
export function coinBalance(o: SuiObject): bigint {
  return new DataView(o.contents.buffer, o.contents.byteOffset).getBigUint64(32, true);
}

/** The storage cost of writing an object: its metered size × obj_data_cost_refundable × storage price. */
export function storageCost(type: string, contents: Uint8Array): bigint {
  return BigInt(objectSizeForGas({ type, contents })) * GAS.objDataCostRefundable * GAS.storagePrice;
}
