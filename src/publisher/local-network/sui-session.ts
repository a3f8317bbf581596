// The values and the session of one transaction in the local network's Sui execution
// (sui-execution.ts runs it): the errors a transaction fails or is refused with, the argument values
// of a programmable transaction (pure bytes, objects, Move values), and the objects it reads and writes.

import { bcs, pureBcsSchemaFromTypeName, type BcsType } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { Chain, SuiObject } from './chain.js';
import { codecs, walrusTypes, type World } from './genesis.js';
import { canonicalType, Coin, coinTypeOf, deriveObjectId, type Owner } from './sui-formats.js';

/** The transaction is refused before execution (a gRPC error status; nothing is written). */
export class RejectedTransaction extends Error {}

/** An execution failure: the ExecutionFailureStatus (BCS shape) and its text. */
export class ExecutionFailure extends Error {
  constructor(
    readonly status: Record<string, unknown>,
    text: string,
  ) {
    super(text);
  }
}

/** A PTB value: pure bytes, an object (by id; its state is in Session.live), or a non-object Move
 * value (a Metadata, a String). */
export type Value = { k: 'pure'; bytes: Uint8Array } | { k: 'obj'; id: string } | { k: 'val'; type: string; value: any };
export interface Slot {
  v: Value;
  moved: boolean;
}

export interface Live {
  id: string;
  type: string;
  value: any;
  owner: Owner | null;
  state: 'live' | 'wrapped' | 'deleted';
  /** the object as it was before this transaction (inputs, gas coins, dynamic fields read) */
  before?: SuiObject;
  mutable: boolean;
  input: boolean;
  /** written by this transaction (dynamic fields borrowed mutably, objects mutated) */
  written: boolean;
}

interface PendingEvent {
  packageId: string;
  module: string;
  type: string;
  bcs: Uint8Array;
  json: Record<string, unknown>;
}

export const SUI_FRAMEWORK = normalizeSuiAddress('0x2');

function hexNoPrefix(address: string): string {
  return normalizeSuiAddress(address).slice(2);
}

export function moveAbort(address: string, module: string, fn: string, code: number): ExecutionFailure {
  return new ExecutionFailure(
    { MoveAbort: [{ module: { address, name: module }, function: 0, instruction: 0, functionName: fn }, code] },
    `MoveAbort(MoveLocation { module: ModuleId { address: ${hexNoPrefix(address)}, name: Identifier("${module}") }, function: 0, instruction: 0, function_name: Some("${fn}") }, ${code})`,
  );
}

export function argError(argIdx: number, kind: string): ExecutionFailure {
  return new ExecutionFailure({ CommandArgumentError: { argIdx, kind: { [kind]: true } } }, `CommandArgumentError { arg_idx: ${argIdx}, kind: ${kind} }`);
}

export function simpleFailure(kind: string): ExecutionFailure {
  return new ExecutionFailure({ [kind]: true }, kind);
}

const PURE_TYPES = new Set(['u8', 'u16', 'u32', 'u64', 'u128', 'u256', 'bool', 'address', 'vector<u8>']);
export const STRING_TYPE = canonicalType('0x1::string::String');
const ID_TYPE = canonicalType('0x2::object::ID');

export function pureSchema(type: string): BcsType<any, any> | null {
  if (PURE_TYPES.has(type)) return pureBcsSchemaFromTypeName(type as 'u8');
  if (type === STRING_TYPE) return bcs.string();
  if (type === ID_TYPE) return bcs.Address;
  return null;
}

/** A pure argument as the Move functions here take it: bigint for u64/u128/u256, bytes for vector<u8>. */
export function decodePure(type: string, bytes: Uint8Array, argIdx: number): any {
  const schema = pureSchema(type)!;
  let value: any;
  try {
    value = schema.parse(bytes);
  } catch {
    throw argError(argIdx, 'InvalidBCSBytes');
  }
  if (schema.serialize(value).toBytes().length !== bytes.length) throw argError(argIdx, 'InvalidBCSBytes');
  if (type === 'u64' || type === 'u128' || type === 'u256') return BigInt(value);
  if (type === 'vector<u8>') return new Uint8Array(value);
  return value;
}

export function obj(live: Live): Value {
  return { k: 'obj', id: live.id };
}

/** A Move function the double runs: its arguments are resolved per its signature (objects as
 * Live, pure values decoded), it returns its results. */
export type MoveFn = (s: Session, args: any[], typeArgs: string[]) => Value[];
export type MoveCalls = (pkg: string, module: string, name: string) => MoveFn | undefined;

/** One transaction's execution state. */
export class Session {
  readonly live = new Map<string, Live>();
  readonly created = new Set<string>();
  readonly events: PendingEvent[] = [];
  /** payment coins after the first, smashed into it */
  readonly gasExtras = new Set<string>();
  readonly codecs: Map<string, BcsType<any, any>>;
  readonly types: ReturnType<typeof walrusTypes>;
  count = 0;
  /** the (smashed) gas coin: by value only to TransferObjects */
  gasId = '';
  /** the version every written object gets (and objects shared here start at) */
  lamport = 0n;
  callPackage = '';
  callModule = '';

  constructor(
    readonly chain: Chain,
    readonly world: World,
    readonly digest: string,
    readonly sender: string,
    readonly calls: MoveCalls,
  ) {
    this.codecs = codecs(world);
    this.types = walrusTypes(world);
  }

  codec(type: string): BcsType<any, any> {
    const codec = this.codecs.get(type) ?? (coinTypeOf(type) ? Coin : undefined);
    if (!codec) throw new RejectedTransaction(`objects of type ${type} are not supported by the local network`);
    return codec;
  }

  track(o: SuiObject, mutable: boolean, input: boolean): Live {
    const live: Live = { id: o.id, type: o.type, value: this.codec(o.type).parse(o.contents), owner: o.owner, state: 'live', before: o, mutable, input, written: false };
    this.live.set(o.id, live);
    return live;
  }

  /** TxContext::fresh_id: the next derived object id. */
  fresh(): string {
    return deriveObjectId(this.digest, this.count++);
  }

  /** A new object (fresh id, or a dynamic field's derived id), held by the PTB until placed. */
  create(type: string, value: any, id: string): Live {
    const live: Live = { id, type: canonicalType(type), value, owner: null, state: 'live', mutable: true, input: false, written: true };
    this.live.set(id, live);
    this.created.add(id);
    return live;
  }

  /** A dynamic field object of `parent`, if it exists. */
  child(parent: string, id: string, mutable: boolean): Live | undefined {
    let live = this.live.get(id);
    if (!live) {
      const o = this.chain.get(id);
      if (!o || !('ObjectOwner' in o.owner) || o.owner.ObjectOwner !== parent) return undefined;
      live = this.track(o, true, false);
    }
    if (live.state !== 'live') return undefined;
    if (mutable) live.written = true;
    return live;
  }

  emit(type: string, codec: BcsType<any, any>, value: any, json: Record<string, unknown>): void {
    this.events.push({ packageId: this.callPackage, module: this.callModule, type: canonicalType(type), bcs: codec.serialize(value).toBytes(), json });
  }

  abort(module: string, fn: string, code: number): never {
    throw moveAbort(this.world.walrusPackage, module, fn, code);
  }
}
