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
import { normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import { GAS, type Chain, type TxRecord } from './chain.js';
import { lookupFunction, normalizedFunction, substitute, type World } from './genesis.js';
import { canonicalType, SUI_TYPE } from './sui-formats.js';
import { executeTransaction, RejectedTransaction } from './walrus-calls.js';
import { applyMask, executedTransactionProto, GrpcError, objectProto, Status, transactionProto, type Plain } from './sui-grpc-messages.js';

export { GrpcError, Status };

// the .proto files stay in src/ (tsc copies no data): this path holds from src/ and from dist/ alike
const PROTO_DIR = fileURLToPath(new URL('../../../src/publisher/local-network/proto', import.meta.url));
const SERVICES = ['ledger_service', 'state_service', 'move_package_service', 'transaction_execution_service'];
export const GRPC_WEB = 'application/grpc-web+proto';
export const GRPC_WEB_TEXT = 'application/grpc-web-text+proto';

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

type Handler = (request: Plain) => Plain | Promise<Plain>;

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
  throw new GrpcError(Status.UNIMPLEMENTED, `command ${Object.keys(c)[0]} is not supported by the local network`);
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
  if (input.kind && input.kind !== 'INPUT_KIND_UNKNOWN') throw new GrpcError(Status.UNIMPLEMENTED, `input kind ${input.kind} is not supported by the local network`);
  if (input.literal) throw new GrpcError(Status.UNIMPLEMENTED, 'literal inputs are not supported by the local network');
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
      if (!txBytes) throw new GrpcError(Status.INVALID_ARGUMENT, 'only BCS transactions are executed');
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
    if (!descriptor || !handler) return answerError(res, Status.UNIMPLEMENTED, `${method} is not supported by the local network`);
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
      answerError(res, Status.INTERNAL, `${(error as Error).stack ?? error}`);
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
