// The Sui full node of the double: Sui's gRPC API (sui.rpc.v2) as gRPC-web over HTTP/1.1 on
// 127.0.0.1 — the transport @mysten/sui 2.x's SuiGrpcClient speaks (@protobuf-ts/grpcweb-transport:
// POST /<package.Service>/<Method>, content-type application/grpc-web+proto, 5-byte length-prefixed
// frames — base64 of them in the text format the client asks for —, the status in a trailer frame flagged 0x80 or, for an error, in the response headers;
// github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md). Messages are encoded with protobufjs from
// the published .proto files (proto/, copied from MystenLabs/sui-apis), not with the SDK's own
// generated code. The methods are those the Sui and Walrus SDKs call for the Walrus flows
// (ts-sdks packages/sui/src/grpc/core.ts): anything else is UNIMPLEMENTED, and a request that is
// not gRPC-web (a JSON-RPC POST, say) is 415, as a gRPC server refuses a foreign content type.
//
// SimulateTransaction resolves a transaction as the full node does for SuiGrpcClient, which sends
// it unresolved (transaction-resolver.ts): an input with no kind is an object looked up by id (a
// shared object mutable when the Move function takes it by value or &mut), and with
// do_gas_selection the sender's SUI coins pay a budget estimated by a dry run (the SDK's own
// client-side estimate: computation + 1000 × RGP overhead + storage − rebate, at least the
// computation with overhead; core-resolver.ts).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import protobuf from 'protobufjs';
import { bcs } from '@mysten/sui/bcs';
import { fromBase64, normalizeSuiAddress, toBase58, toBase64 } from '@mysten/sui/utils';
import { coinBalance, GAS, type Chain, type SuiObject, type TxRecord } from './chain.js';
import { lookupFunction, normalizedFunction, substitute, type World } from './genesis.js';
import { canonicalType, coinTypeOf, hashTyped, objectBcs, SUI_TYPE, type Owner } from './sui-formats.js';
import { executeTransaction, RejectedTransaction } from './walrus-calls.js';

// the .proto files stay in src/ (tsc copies no data): this path holds from src/ and from dist/ alike
const PROTO_DIR = fileURLToPath(new URL('../../../src/publisher/local-network/proto', import.meta.url));
const SERVICES = ['ledger_service', 'state_service', 'move_package_service', 'transaction_execution_service'];
export const GRPC_WEB = 'application/grpc-web+proto';
export const GRPC_WEB_TEXT = 'application/grpc-web-text+proto';

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

let cachedRoot: protobuf.Root | undefined;

/** sui.rpc.v2 from the .proto files, field names as written there (snake_case). */
export function suiApi(): protobuf.Root {
  if (cachedRoot) return cachedRoot;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync(SERVICES.map((s) => `sui/rpc/v2/${s}.proto`), { keepCase: true });
  root.resolveAll();
  cachedRoot = root;
  return root;
}

/** protobufjs's plain-object form: 64-bit integers as decimal strings, bytes as Buffers, enums by name. */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: false, oneofs: true };

type Plain = Record<string, any>;
type Handler = (request: Plain) => Plain | Promise<Plain>;

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
  throw new GrpcError(Status.UNIMPLEMENTED, `test double: command ${Object.keys(c)[0]} is not doubled`);
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

// ---- transaction resolution (SimulateTransaction) ----

const GAS_SAFE_OVERHEAD = 1000n;
/** the dry run that estimates the budget runs on a mock coin holding this much */
const ESTIMATE_BUDGET = 50_000_000_000n;

function protoArgument(a: Plain): Plain {
  if (a.kind === 'GAS') return { GasCoin: true };
  if (a.kind === 'INPUT') return { Input: a.input ?? 0 };
  if (a.subresult !== undefined) return { NestedResult: [a.result ?? 0, a.subresult] };
  return { Result: a.result ?? 0 };
}

function protoCommand(c: Plain): Plain {
  if (c.move_call) {
    const m = c.move_call;
    return { MoveCall: { package: m.package, module: m.module, function: m.function, typeArguments: m.type_arguments ?? [], arguments: (m.arguments ?? []).map(protoArgument) } };
  }
  if (c.transfer_objects) return { TransferObjects: { objects: (c.transfer_objects.objects ?? []).map(protoArgument), address: protoArgument(c.transfer_objects.address) } };
  if (c.split_coins) return { SplitCoins: { coin: protoArgument(c.split_coins.coin), amounts: (c.split_coins.amounts ?? []).map(protoArgument) } };
  if (c.merge_coins) return { MergeCoins: { destination: protoArgument(c.merge_coins.coin), sources: (c.merge_coins.coins_to_merge ?? []).map(protoArgument) } };
  if (c.make_move_vector) return { MakeMoveVec: { type: c.make_move_vector.element_type ?? null, elements: (c.make_move_vector.elements ?? []).map(protoArgument) } };
  throw new GrpcError(Status.UNIMPLEMENTED, `test double: command ${Object.keys(c)[0]} is not doubled`);
}

/** Whether some Move call of the transaction takes input `index` by value or by &mut. */
function usedMutably(world: World, commands: Plain[], index: number): boolean {
  let mutable = false;
  for (const c of commands) {
    const m = c.move_call;
    if (!m) {
      // TransferObjects, MergeCoins, SplitCoins take objects by value or by &mut
      mutable = true;
      continue;
    }
    const sig = lookupFunction(world, m.package, m.module, m.function);
    (m.arguments ?? []).forEach((a: Plain, i: number) => {
      if (a.kind !== 'INPUT' || (a.input ?? 0) !== index) return;
      const param = sig ? substitute(world, sig.params[i] ?? '') : '&mut';
      if (!param.startsWith('&') || param.startsWith('&mut')) mutable = true;
    });
  }
  return mutable;
}

function resolveInput(chain: Chain, world: World, commands: Plain[], input: Plain, index: number): Plain {
  if (input.kind === 'PURE') return { Pure: { bytes: toBase64(input.pure ?? new Uint8Array()) } };
  if (input.kind === 'IMMUTABLE_OR_OWNED') return { Object: { ImmOrOwnedObject: { objectId: input.object_id, version: input.version, digest: input.digest } } };
  if (input.kind === 'SHARED') return { Object: { SharedObject: { objectId: input.object_id, initialSharedVersion: input.version, mutable: input.mutable ?? true } } };
  if (input.kind === 'RECEIVING') return { Object: { Receiving: { objectId: input.object_id, version: input.version, digest: input.digest } } };
  if (input.kind && input.kind !== 'INPUT_KIND_UNKNOWN') throw new GrpcError(Status.UNIMPLEMENTED, `test double: input kind ${input.kind} is not doubled`);
  if (input.literal) throw new GrpcError(Status.UNIMPLEMENTED, 'test double: literal inputs are not doubled');
  const o = input.object_id ? chain.get(input.object_id) : undefined;
  if (!o) throw new GrpcError(Status.INVALID_ARGUMENT, `object ${input.object_id} not found`);
  if ('Shared' in o.owner) {
    const mutable = input.mutable ?? usedMutably(world, commands, index);
    return { Object: { SharedObject: { objectId: o.id, initialSharedVersion: o.owner.Shared.initialSharedVersion, mutable } } };
  }
  return { Object: { ImmOrOwnedObject: { objectId: o.id, version: String(o.version), digest: o.digest } } };
}

function transactionBytes(sender: string, inputs: Plain[], commands: Plain[], gas: { payment: Plain[]; price: bigint; budget: bigint }, expiration: Plain): Uint8Array {
  return bcs.TransactionData.serialize({
    V1: {
      kind: { ProgrammableTransaction: { inputs, commands } },
      sender,
      gasData: { payment: gas.payment, owner: sender, price: gas.price, budget: gas.budget },
      expiration,
    },
  } as any).toBytes();
}

async function simulate(chain: Chain, world: World, request: Plain): Promise<Plain> {
  const tx = request.transaction ?? {};
  let txBytes: Uint8Array;
  if (tx.bcs?.value) {
    txBytes = tx.bcs.value;
  } else {
    const pt = tx.kind?.programmable_transaction;
    if (!pt) throw new GrpcError(Status.INVALID_ARGUMENT, 'missing transaction.kind.programmable_transaction');
    const protoCommands: Plain[] = pt.commands ?? [];
    const sender = normalizeSuiAddress(tx.sender ?? '0x0');
    const inputs = (pt.inputs ?? []).map((input: Plain, i: number) => resolveInput(chain, world, protoCommands, input, i));
    const commands = protoCommands.map(protoCommand);
    const expiration = tx.expiration?.kind === 'EPOCH' ? { Epoch: tx.expiration.epoch } : { None: true };
    const price = tx.gas_payment?.price ? BigInt(tx.gas_payment.price) : GAS.referenceGasPrice;
    let payment: Plain[] = (tx.gas_payment?.objects ?? []).map((r: Plain) => ({ objectId: r.object_id, version: r.version, digest: r.digest }));
    let budget = tx.gas_payment?.budget ? BigInt(tx.gas_payment.budget) : undefined;
    if (request.do_gas_selection && request.checks !== 'DISABLED') {
      if (budget === undefined) {
        const estimate = await executeTransaction(chain, world, transactionBytes(sender, inputs, commands, { payment: [], price, budget: ESTIMATE_BUDGET }, expiration), { dryRun: true, signatures: [] });
        const { computationCost, storageCost, storageRebate } = bcs.TransactionEffects.parse(estimate.effectsBcs).V2!.gasUsed;
        const base = BigInt(computationCost) + GAS_SAFE_OVERHEAD * price;
        const net = base + BigInt(storageCost) - BigInt(storageRebate);
        budget = net > base ? net : base;
      }
      if (payment.length === 0) payment = selectGas(chain, sender, inputs, budget);
    }
    txBytes = transactionBytes(sender, inputs, commands, { payment, price, budget: budget ?? ESTIMATE_BUDGET }, expiration);
    // checks DISABLED (the SDK's kind-only builds, which have no sender): resolved, not run
    if (request.checks === 'DISABLED') return { transaction: { transaction: transactionProto(txBytes, '') } };
  }
  const record = await run(chain, world, txBytes, [], true);
  return { transaction: executedTransactionProto(record) };
}

/** The sender's SUI coins, largest first, that are no input of the transaction, until they cover the budget. */
function selectGas(chain: Chain, sender: string, inputs: Plain[], budget: bigint): Plain[] {
  const used = new Set(inputs.map((i) => i.Object?.ImmOrOwnedObject?.objectId && normalizeSuiAddress(i.Object.ImmOrOwnedObject.objectId)));
  const coins = chain.coins(sender, SUI_TYPE).filter((c) => !used.has(c.object.id)).sort((a, b) => (a.balance > b.balance ? -1 : a.balance < b.balance ? 1 : 0));
  const chosen: Plain[] = [];
  let total = 0n;
  for (const c of coins) {
    if (total >= budget) break;
    chosen.push({ objectId: c.object.id, version: String(c.object.version), digest: c.object.digest });
    total += c.balance;
  }
  if (total < budget) throw new GrpcError(Status.INVALID_ARGUMENT, `Unable to select gas coins: ${sender} holds ${total} MIST in coins usable for gas, the budget is ${budget}`);
  return chosen;
}

async function run(chain: Chain, world: World, txBytes: Uint8Array, signatures: string[], dryRun: boolean): Promise<TxRecord> {
  try {
    return await executeTransaction(chain, world, txBytes, { dryRun, signatures });
  } catch (error) {
    if (error instanceof RejectedTransaction) throw new GrpcError(Status.INVALID_ARGUMENT, error.message);
    throw error;
  }
}

// ---- Move functions (GetFunction) ----

function openSignatureBody(t: any): Plain {
  if (typeof t === 'string') return { type: t.toUpperCase() };
  if (t.Vector) return { type: 'VECTOR', type_parameter_instantiation: [openSignatureBody(t.Vector)] };
  if (t.TypeParameter !== undefined) return { type: 'TYPE_PARAMETER', type_parameter: t.TypeParameter };
  const s = t.Struct;
  return { type: 'DATATYPE', type_name: `${s.address}::${s.module}::${s.name}`, type_parameter_instantiation: s.typeArguments.map(openSignatureBody) };
}

function openSignature(t: any): Plain {
  if (t.MutableReference) return { reference: 'MUTABLE', body: openSignatureBody(t.MutableReference) };
  if (t.Reference) return { reference: 'IMMUTABLE', body: openSignatureBody(t.Reference) };
  return { body: openSignatureBody(t) };
}

// ---- the services ----

function handlers(chain: Chain, world: World): Record<string, Handler> {
  const getObject = (id: string | undefined): Plain => {
    const o = id ? chain.get(id) : undefined;
    if (!o) return { error: { code: Status.NOT_FOUND, message: `Object ${id} not found` } };
    return { object: objectProto(o) };
  };
  const OBJECT_DEFAULT = ['object_id', 'version', 'digest'];
  const transaction = (digest: string | undefined): TxRecord => {
    const tx = digest ? chain.transactions.get(digest) : undefined;
    if (!tx) throw new GrpcError(Status.NOT_FOUND, `Transaction ${digest} not found`);
    return tx;
  };
  return {
    'sui.rpc.v2.LedgerService/GetServiceInfo': () => ({
      chain_id: chain.genesisDigest,
      chain: 'walrus-double',
      epoch: String(chain.suiEpoch),
      checkpoint_height: String(chain.checkpoint),
      timestamp: { seconds: String(Math.floor(Date.now() / 1000)) },
      lowest_available_checkpoint: '0',
      server: 'tusk-walrus-double',
    }),
    'sui.rpc.v2.LedgerService/GetObject': (r) => {
      const result = getObject(r.object_id);
      if (result.error) throw new GrpcError(result.error.code, result.error.message);
      return { object: applyMask(result.object, r.read_mask, OBJECT_DEFAULT) };
    },
    'sui.rpc.v2.LedgerService/BatchGetObjects': (r) => ({
      objects: (r.requests ?? []).map((q: Plain) => {
        const result = getObject(q.object_id);
        return result.error ? result : { object: applyMask(result.object, q.read_mask ?? r.read_mask, OBJECT_DEFAULT) };
      }),
    }),
    'sui.rpc.v2.LedgerService/GetTransaction': (r) => ({ transaction: applyMask(executedTransactionProto(transaction(r.digest)), r.read_mask, ['digest']) }),
    'sui.rpc.v2.LedgerService/BatchGetTransactions': (r) => ({
      transactions: (r.digests ?? []).map((d: string) => {
        const tx = chain.transactions.get(d);
        return tx ? { transaction: applyMask(executedTransactionProto(tx), r.read_mask, ['digest']) } : { error: { code: Status.NOT_FOUND, message: `Transaction ${d} not found` } };
      }),
    }),
    'sui.rpc.v2.LedgerService/GetEpoch': (r) =>
      ({ epoch: applyMask({ epoch: String(chain.suiEpoch), reference_gas_price: String(GAS.referenceGasPrice), first_checkpoint: '0' }, r.read_mask, ['epoch', 'reference_gas_price']) }),
    'sui.rpc.v2.StateService/ListOwnedObjects': (r) => {
      let objects = chain.ownedBy(r.owner ?? '0x0').sort((a, b) => (a.id < b.id ? -1 : 1));
      if (r.object_type) {
        const want = canonicalType(r.object_type);
        objects = objects.filter((o) => (want.includes('<') ? o.type === want : o.type.split('<')[0] === want));
      }
      const after = r.page_token?.length ? Buffer.from(r.page_token).toString('utf8') : undefined;
      if (after) objects = objects.filter((o) => o.id > after);
      const size = Math.min(r.page_size || 50, 1000);
      const page = objects.slice(0, size);
      const next = objects.length > size ? Buffer.from(page[page.length - 1]!.id, 'utf8') : undefined;
      return { objects: page.map((o) => applyMask(objectProto(o), r.read_mask, OBJECT_DEFAULT)), next_page_token: next };
    },
    'sui.rpc.v2.StateService/GetBalance': (r) => {
      const coinType = canonicalType(r.coin_type ?? SUI_TYPE);
      const total = chain.coins(r.owner ?? '0x0', coinType).reduce((n, c) => n + c.balance, 0n);
      return { balance: { coin_type: coinType, balance: String(total), coin_balance: String(total), address_balance: '0' } };
    },
    'sui.rpc.v2.MovePackageService/GetFunction': (r) => {
      const sig = lookupFunction(world, r.package_id ?? '0x0', r.module_name ?? '', r.name ?? '');
      if (!sig) throw new GrpcError(Status.NOT_FOUND, `Function ${r.package_id}::${r.module_name}::${r.name} not found`);
      const fn = normalizedFunction(world, sig) as { parameters: unknown[]; return: unknown[]; typeParameters: unknown[] };
      return {
        function: {
          name: r.name,
          visibility: 'PUBLIC',
          is_entry: false,
          type_parameters: fn.typeParameters.map(() => ({ constraints: [] })),
          parameters: fn.parameters.map(openSignature),
          returns: fn.return.map(openSignature),
        },
      };
    },
    'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction': async (r) => {
      const txBytes: Uint8Array | undefined = r.transaction?.bcs?.value;
      if (!txBytes) throw new GrpcError(Status.INVALID_ARGUMENT, 'test double: only BCS transactions are executed');
      const signatures = (r.signatures ?? []).map((s: Plain) => toBase64(s.bcs?.value ?? new Uint8Array()));
      const record = await run(chain, world, txBytes, signatures, false);
      return { transaction: applyMask(executedTransactionProto(record), r.read_mask, ['effects.status', 'checkpoint']) };
    },
    'sui.rpc.v2.TransactionExecutionService/SimulateTransaction': async (r) => applyMask(await simulate(chain, world, r), r.read_mask, ['transaction.effects.status']),
  };
}

// ---- gRPC-web framing ----

function frame(flag: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** The first data frame of a gRPC-web request body. */
function firstMessage(body: Buffer): Uint8Array {
  if (body.length < 5 || (body[0]! & 0x80) !== 0) throw new GrpcError(Status.INVALID_ARGUMENT, 'no request message');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new GrpcError(Status.INVALID_ARGUMENT, 'truncated request message');
  return body.subarray(5, 5 + length);
}

/** Fault injection: each request first asks `before` (null: answer normally). */
export interface GrpcFaults {
  before?: (method: string, request: Plain) => { code: number; message: string } | null | Promise<{ code: number; message: string } | null>;
}

export interface SuiGrpcServer {
  url: string;
  faults: GrpcFaults;
  /** method → number of calls, for tests */
  calls: Map<string, number>;
  /** the requests refused as no gRPC-web ("POST application/json", a JSON-RPC client's), for tests */
  refused: string[];
  close(): Promise<void>;
}

export async function startSuiGrpc(chain: Chain, world: World): Promise<SuiGrpcServer> {
  const root = suiApi();
  const table = handlers(chain, world);
  const faults: GrpcFaults = {};
  const calls = new Map<string, number>();
  const refused: string[] = [];
  const serve = async (req: IncomingMessage, res: ServerResponse, received: Buffer) => {
    let body = received;
    const contentType = req.headers['content-type'] ?? '';
    if (req.method !== 'POST' || !contentType.startsWith('application/grpc-web')) {
      refused.push(`${req.method} ${contentType}`);
      res.writeHead(415, { 'content-type': 'text/plain' });
      res.end(`this Sui full node speaks gRPC-web (sui.rpc.v2), not ${req.method} ${contentType || 'without a content type'}`);
      return;
    }
    // SuiGrpcClient asks for the text format (base64 of the same frames; PROTOCOL-WEB.md "application/grpc-web-text")
    const text = contentType.startsWith('application/grpc-web-text');
    const replyType = text ? GRPC_WEB_TEXT : GRPC_WEB;
    const answerError = (res: ServerResponse, code: number, message: string) => {
      res.writeHead(200, { 'content-type': replyType, 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) });
      res.end();
    };
    if (text) body = Buffer.from(body.toString('latin1'), 'base64');
    const method = (req.url ?? '').slice(1);
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const [serviceName, methodName] = method.split('/');
    const service = serviceName ? (root.lookup(serviceName) as protobuf.Service | null) : null;
    const descriptor = service?.methods?.[methodName ?? ''];
    const handler = table[method];
    if (!descriptor || !handler) return answerError(res, Status.UNIMPLEMENTED, `test double: ${method} is not doubled`);
    try {
      const requestType = root.lookupType(descriptor.requestType);
      const request = requestType.toObject(requestType.decode(firstMessage(body)), TO_OBJECT);
      const fault = await faults.before?.(method, request);
      if (fault) return answerError(res, fault.code, fault.message);
      const answer = await handler(request);
      const responseType = root.lookupType(descriptor.responseType);
      const message = responseType.encode(responseType.fromObject(answer)).finish();
      const frames = Buffer.concat([frame(0, message), frame(0x80, Buffer.from('grpc-status:0\r\ngrpc-message:\r\n'))]);
      res.writeHead(200, { 'content-type': replyType });
      res.end(text ? frames.toString('base64') : frames);
    } catch (error) {
      if (error instanceof GrpcError) return answerError(res, error.code, error.message);
      answerError(res, Status.INTERNAL, `test double: ${(error as Error).stack ?? error}`);
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void serve(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    calls,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
