// The gRPC messages of the double's Sui full node (sui-grpc.ts) as protobufjs plain objects: read
// masks (google.protobuf.FieldMask), objects, transactions, effects and executed transactions in the
// shapes of MystenLabs/sui-apis proto/sui/rpc/v2 (object.proto, transaction.proto, effects.proto,
// executed_transaction.proto), from the ledger's records (chain.ts).

import { bcs } from '@mysten/sui/bcs';
import { fromBase64, normalizeSuiAddress, toBase58 } from '@mysten/sui/utils';
import { coinBalance, type SuiObject, type TxRecord } from './chain.js';
import { coinTypeOf, hashTyped, objectBcs, type Owner } from './sui-formats.js';

export type Plain = Record<string, any>;

/** gRPC status codes (grpc/doc/statuscodes.md). */
export const Status = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
// ---- read masks (google.protobuf.FieldMask: dotted paths; repeated fields apply the rest to each element) ----

type MaskTree = { [field: string]: MaskTree } & { '*'?: true };

function maskTree(paths: string[]): MaskTree {
  const tree: MaskTree = {};
  for (const p of paths) {
    let node = tree;
    for (const part of p.split('.')) node = (node[part] ??= {} as MaskTree) as MaskTree;
    node['*'] = true;
  }
  return tree;
}

function pick(value: any, tree: MaskTree): any {
  if (tree['*'] || value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map((v) => pick(v, tree));
  const out: Plain = {};
  for (const key of Object.keys(tree)) if (key !== '*' && value[key] !== undefined) out[key] = pick(value[key], tree[key]!);
  return out;
}

export function applyMask(value: Plain, mask: { paths?: string[] } | undefined, defaults: string[]): Plain {
  const paths = mask?.paths?.length ? mask.paths : defaults;
  return pick(value, maskTree(paths));
}

// ---- the messages, from the ledger ----

function ownerProto(owner: Owner | Plain): Plain {
  if ('AddressOwner' in owner) return { kind: 'ADDRESS', address: normalizeSuiAddress(owner.AddressOwner) };
  if ('ObjectOwner' in owner) return { kind: 'OBJECT', address: normalizeSuiAddress(owner.ObjectOwner) };
  if ('Shared' in owner) return { kind: 'SHARED', version: String(owner.Shared.initialSharedVersion) };
  return { kind: 'IMMUTABLE' };
}

export function objectProto(o: SuiObject): Plain {
  const out: Plain = {
    bcs: { name: 'Object', value: objectBcs(o) },
    object_id: o.id,
    version: String(o.version),
    digest: o.digest,
    owner: ownerProto(o.owner),
    object_type: o.type,
    has_public_transfer: o.hasPublicTransfer,
    contents: { name: o.type, value: o.contents },
    previous_transaction: o.previousTransaction,
    storage_rebate: String(o.storageRebate),
  };
  if (coinTypeOf(o.type)) out.balance = String(coinBalance(o));
  return out;
}

/** A JSON value as google.protobuf.Value. protobufjs defines the google/protobuf types itself (its
 * "common" definitions, camelCase whatever keepCase says), so these keys are camelCase. */
function jsonValue(v: unknown): Plain {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string' || typeof v === 'bigint') return { stringValue: String(v) };
  if (Array.isArray(v)) return { listValue: { values: v.map(jsonValue) } };
  return { structValue: { fields: Object.fromEntries(Object.entries(v as Plain).map(([k, x]) => [k, jsonValue(x)])) } };
}

const UPPER_SNAKE = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** ExecutionStatus from the executor's ExecutionFailureStatus (BCS shape). */
function statusProto(record: TxRecord): Plain {
  if (!record.failure) return { success: true };
  const { status, command, description } = record.failure;
  const kind = Object.keys(status)[0]!;
  const error: Plain = { description, kind: UPPER_SNAKE(kind) };
  if (command !== null) error.command = String(command);
  if (kind === 'MoveAbort') {
    const [location, code] = status.MoveAbort as [Plain, number];
    error.abort = {
      abort_code: String(code),
      location: { package: normalizeSuiAddress(location.module.address), module: location.module.name, function: location.function, instruction: location.instruction, function_name: location.functionName },
    };
  } else if (kind === 'CommandArgumentError') {
    const { argIdx, kind: argKind } = status.CommandArgumentError as { argIdx: number; kind: Plain };
    error.command_argument_error = { argument: argIdx, kind: UPPER_SNAKE(Object.keys(argKind)[0]!) };
  }
  return { success: false, error };
}

/** TransactionEffects from the effects' BCS (effects_v2.rs) and what the executor knows of the objects. */
export function effectsProto(record: TxRecord): Plain {
  const v2 = bcs.TransactionEffects.parse(record.effectsBcs).V2!;
  const lamport = String(v2.lamportVersion);
  const changed = v2.changedObjects.map(([id, c]: [string, any]) => {
    const out: Plain = { object_id: id, object_type: record.objectTypes[id] };
    if (c.inputState.Exist) {
      const [[version, digest], owner] = c.inputState.Exist;
      Object.assign(out, { input_state: 'INPUT_OBJECT_STATE_EXISTS', input_version: String(version), input_digest: digest, input_owner: ownerProto(owner) });
    } else out.input_state = 'INPUT_OBJECT_STATE_DOES_NOT_EXIST';
    if (c.outputState.ObjectWrite) {
      const [digest, owner] = c.outputState.ObjectWrite;
      Object.assign(out, { output_state: 'OUTPUT_OBJECT_STATE_OBJECT_WRITE', output_version: lamport, output_digest: digest, output_owner: ownerProto(owner) });
    } else out.output_state = 'OUTPUT_OBJECT_STATE_DOES_NOT_EXIST';
    out.id_operation = c.idOperation.Created ? 'CREATED' : c.idOperation.Deleted ? 'DELETED' : 'NONE';
    return out;
  });
  return {
    bcs: { name: 'TransactionEffects', value: record.effectsBcs },
    digest: toBase58(hashTyped('TransactionEffects', record.effectsBcs)),
    version: 2,
    status: statusProto(record),
    epoch: String(v2.executedEpoch),
    gas_used: {
      computation_cost: String(v2.gasUsed.computationCost),
      storage_cost: String(v2.gasUsed.storageCost),
      storage_rebate: String(v2.gasUsed.storageRebate),
      non_refundable_storage_fee: String(v2.gasUsed.nonRefundableStorageFee),
    },
    transaction_digest: v2.transactionDigest,
    gas_object: v2.gasObjectIndex === null ? undefined : changed[v2.gasObjectIndex],
    events_digest: v2.eventsDigest ?? undefined,
    dependencies: v2.dependencies,
    lamport_version: lamport,
    changed_objects: changed,
    unchanged_consensus_objects: v2.unchangedConsensusObjects.map(([id, u]: [string, any]) => ({
      kind: 'READ_ONLY_ROOT',
      object_id: id,
      version: String(u.ReadOnlyRoot[0]),
      digest: u.ReadOnlyRoot[1],
      object_type: record.objectTypes[id],
    })),
  };
}

function argumentProto(arg: Plain): Plain {
  if (arg.GasCoin) return { kind: 'GAS' };
  if (arg.Input !== undefined) return { kind: 'INPUT', input: arg.Input };
  if (arg.Result !== undefined) return { kind: 'RESULT', result: arg.Result };
  return { kind: 'RESULT', result: arg.NestedResult[0], subresult: arg.NestedResult[1] };
}

function commandProto(c: Plain): Plain {
  if (c.MoveCall) {
    const m = c.MoveCall;
    return { move_call: { package: normalizeSuiAddress(m.package), module: m.module, function: m.function, type_arguments: m.typeArguments, arguments: m.arguments.map(argumentProto) } };
  }
  if (c.TransferObjects) return { transfer_objects: { objects: c.TransferObjects.objects.map(argumentProto), address: argumentProto(c.TransferObjects.address) } };
  if (c.SplitCoins) return { split_coins: { coin: argumentProto(c.SplitCoins.coin), amounts: c.SplitCoins.amounts.map(argumentProto) } };
  if (c.MergeCoins) return { merge_coins: { coin: argumentProto(c.MergeCoins.destination), coins_to_merge: c.MergeCoins.sources.map(argumentProto) } };
  if (c.MakeMoveVec) return { make_move_vector: { element_type: c.MakeMoveVec.type ?? undefined, elements: c.MakeMoveVec.elements.map(argumentProto) } };
  throw new GrpcError(Status.UNIMPLEMENTED, `command ${Object.keys(c)[0]} is not supported by the local network`);
}

function inputProto(arg: Plain): Plain {
  if (arg.Pure) return { kind: 'PURE', pure: fromBase64(arg.Pure.bytes) };
  const o = arg.Object;
  if (o.ImmOrOwnedObject) return { kind: 'IMMUTABLE_OR_OWNED', object_id: o.ImmOrOwnedObject.objectId, version: String(o.ImmOrOwnedObject.version), digest: o.ImmOrOwnedObject.digest };
  if (o.SharedObject) return { kind: 'SHARED', object_id: o.SharedObject.objectId, version: String(o.SharedObject.initialSharedVersion), mutable: o.SharedObject.mutable };
  return { kind: 'RECEIVING', object_id: o.Receiving.objectId, version: String(o.Receiving.version), digest: o.Receiving.digest };
}

/** A Transaction message from TransactionData BCS. */
export function transactionProto(txBytes: Uint8Array, digest: string): Plain {
  const v1 = bcs.TransactionData.parse(txBytes).V1!;
  const pt = v1.kind.ProgrammableTransaction!;
  return {
    bcs: { name: 'TransactionData', value: txBytes },
    digest,
    version: 1,
    kind: { kind: 'PROGRAMMABLE_TRANSACTION', programmable_transaction: { inputs: pt.inputs.map(inputProto), commands: pt.commands.map(commandProto) } },
    sender: normalizeSuiAddress(v1.sender),
    gas_payment: {
      objects: v1.gasData.payment.map((r: Plain) => ({ object_id: r.objectId, version: String(r.version), digest: r.digest })),
      owner: normalizeSuiAddress(v1.gasData.owner),
      price: String(v1.gasData.price),
      budget: String(v1.gasData.budget),
    },
    expiration: v1.expiration.Epoch !== undefined ? { kind: 'EPOCH', epoch: String(v1.expiration.Epoch) } : { kind: 'NONE' },
  };
}

export function executedTransactionProto(record: TxRecord): Plain {
  return {
    digest: record.digest,
    transaction: transactionProto(record.txBytes, record.digest),
    signatures: record.signatures.map((s) => ({ bcs: { name: 'UserSignatureBytes', value: fromBase64(s) } })),
    effects: effectsProto(record),
    events: {
      events: record.events.map((e) => ({
        package_id: e.packageId,
        module: e.module,
        sender: e.sender,
        event_type: e.type,
        contents: { name: e.type, value: e.bcs },
        json: jsonValue(e.parsedJson),
      })),
    },
    checkpoint: String(record.checkpoint),
    timestamp: { seconds: String(Math.floor(record.timestampMs / 1000)), nanos: (record.timestampMs % 1000) * 1_000_000 },
    balance_changes: record.balanceChanges,
  };
}
