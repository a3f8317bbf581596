// The Sui JSON-RPC 2.0 server of the double (node:http on 127.0.0.1, port 0), answering the methods
// @mysten/sui 1.45's SuiClient calls for the Walrus SDK (jsonRpc/client.js, jsonRpc/core.js,
// jsonRpc/json-rpc-resolver.js, transactions/intents/CoinWithBalance.js) plus a few neighbours,
// from the ledger (chain.ts) and the executor (walrus-calls.ts). Any other method is a JSON-RPC
// error naming it. Response shapes: MystenLabs/sui crates/sui-json-rpc-types (SuiObjectResponse,
// SuiObjectData with RawData::MoveObject, Coin, Balance, SuiTransactionBlockResponse with
// rawTransaction / rawEffects, SuiEvent, ObjectChange, BalanceChange, DryRunTransactionBlockResponse,
// SuiMoveNormalizedFunction) and crates/sui-json-rpc-api (method names and parameter order).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bcs, pureBcsSchemaFromTypeName, type BcsType } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, fromBase58, fromBase64, normalizeSuiAddress, toBase64, toHex } from '@mysten/sui/utils';
import { coinBalance, GAS, type Chain, type EventRecord, type SuiObject, type TxRecord } from './chain.js';
import { lookupFunction, normalizedFunction, type World } from './genesis.js';
import { canonicalType, coinTypeOf, displayType, ownerJson, SUI_TYPE } from './sui-formats.js';
import { executeTransaction, RejectedTransaction } from './walrus-calls.js';

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Options = Record<string, boolean | undefined> | null | undefined;

function objectData(o: SuiObject, options: Options): Record<string, unknown> {
  const data: Record<string, unknown> = { objectId: o.id, version: String(o.version), digest: o.digest };
  if (options?.showType) data.type = displayType(o.type);
  if (options?.showOwner) data.owner = ownerJson(o.owner);
  if (options?.showPreviousTransaction) data.previousTransaction = o.previousTransaction;
  if (options?.showStorageRebate) data.storageRebate = String(o.storageRebate);
  if (options?.showBcs)
    data.bcs = { dataType: 'moveObject', type: displayType(o.type), hasPublicTransfer: o.hasPublicTransfer, version: Number(o.version), bcsBytes: toBase64(o.contents) };
  return data;
}

function objectResponse(chain: Chain, id: string, options: Options): Record<string, unknown> {
  const objectId = normalizeSuiAddress(id);
  const o = chain.get(objectId);
  if (o) return { data: objectData(o, options) };
  const gone = chain.removed.get(objectId);
  if (gone) return { error: { code: 'deleted', object_id: objectId, version: String(gone.version), digest: gone.digest } };
  return { error: { code: 'notExists', object_id: objectId } };
}

function eventJson(e: EventRecord): Record<string, unknown> {
  return {
    id: { txDigest: e.txDigest, eventSeq: String(e.eventSeq) },
    packageId: e.packageId,
    transactionModule: e.module,
    sender: e.sender,
    type: displayType(e.type),
    parsedJson: e.parsedJson,
    bcsEncoding: 'base64',
    bcs: toBase64(e.bcs),
    timestampMs: String(e.timestampMs),
  };
}

function txResponse(tx: TxRecord, options: Options): Record<string, unknown> {
  const out: Record<string, unknown> = { digest: tx.digest };
  if (options?.showRawInput) out.rawTransaction = toBase64(tx.senderSignedData);
  if (options?.showEffects) out.effects = tx.effectsJson;
  if (options?.showRawEffects) out.rawEffects = [...tx.effectsBcs];
  if (options?.showEvents) out.events = tx.events.map(eventJson);
  if (options?.showObjectChanges) out.objectChanges = tx.objectChanges;
  if (options?.showBalanceChanges) out.balanceChanges = tx.balanceChanges;
  out.timestampMs = String(tx.timestampMs);
  out.checkpoint = String(tx.checkpoint);
  return out;
}

function page<T>(items: T[], key: (t: T) => string, cursor: string | null | undefined, limit: number | null | undefined) {
  const start = cursor ? items.findIndex((t) => key(t) === cursor) + 1 : 0;
  const size = Math.min(limit ?? 50, 50);
  const data = items.slice(start, start + size);
  const hasNextPage = start + size < items.length;
  return { data, nextCursor: data.length ? key(data[data.length - 1]!) : (cursor ?? null), hasNextPage };
}

function coinJson(o: SuiObject) {
  return {
    coinType: displayType(coinTypeOf(o.type)!),
    coinObjectId: o.id,
    version: String(o.version),
    digest: o.digest,
    balance: String(coinBalance(o)),
    previousTransaction: o.previousTransaction,
  };
}

function balanceJson(chain: Chain, owner: string, coinType: string) {
  const coins = chain.coins(owner, coinType);
  return {
    coinType: displayType(coinType),
    coinObjectCount: coins.length,
    totalBalance: String(coins.reduce((n, c) => n + c.balance, 0n)),
    lockedBalance: {},
  };
}

/** The BCS of a dynamic field name given as JSON-RPC DynamicFieldName { type, value }. */
function nameBcs(name: { type: string; value: unknown }): Uint8Array {
  const type = name.type.includes('::') ? canonicalType(name.type) : name.type;
  if (type === canonicalType('0x1::string::String') || type === canonicalType('0x1::ascii::String')) return bcs.string().serialize(String(name.value)).toBytes();
  if (type === canonicalType('0x2::object::ID')) return bcs.Address.serialize(String(name.value)).toBytes();
  try {
    return pureBcsSchemaFromTypeName(type as 'u64').serialize(name.value as never).toBytes();
  } catch {
    throw new RpcError(-32602, `test double: dynamic field names of type ${name.type} are not doubled`);
  }
}

export function rpcMethods(chain: Chain, world: World): Record<string, (...params: any[]) => unknown> {
  const run = async (txB64: string, signatures: string[], dryRun: boolean) => {
    try {
      return await executeTransaction(chain, world, fromBase64(txB64), { dryRun, signatures });
    } catch (error) {
      if (error instanceof RejectedTransaction) throw new RpcError(-32002, error.message);
      throw error;
    }
  };
  return {
    sui_getChainIdentifier: () => toHex(fromBase58(chain.genesisDigest).subarray(0, 4)),
    sui_getLatestCheckpointSequenceNumber: () => String(chain.checkpoint),
    sui_getTotalTransactionBlocks: () => String(chain.transactions.size),
    suix_getReferenceGasPrice: () => String(GAS.referenceGasPrice),
    sui_getObject: (id: string, options: Options) => objectResponse(chain, id, options),
    sui_multiGetObjects: (ids: string[], options: Options) => ids.map((id) => objectResponse(chain, id, options)),
    suix_getOwnedObjects(owner: string, query: { filter?: Record<string, string> | null; options?: Options } | null, cursor?: string, limit?: number) {
      const filter = query?.filter;
      let objects = chain.ownedBy(owner).sort((a, b) => (a.id < b.id ? -1 : 1));
      if (filter) {
        if (!('StructType' in filter)) throw new RpcError(-32602, `test double: owned-object filter ${Object.keys(filter)[0]} is not doubled`);
        const want = canonicalType(filter.StructType!);
        objects = objects.filter((o) => (want.includes('<') ? o.type === want : o.type.split('<')[0] === want));
      }
      const p = page(objects, (o) => o.id, cursor, limit);
      return { data: p.data.map((o) => ({ data: objectData(o, query?.options) })), nextCursor: p.nextCursor, hasNextPage: p.hasNextPage };
    },
    suix_getCoins(owner: string, coinType?: string | null, cursor?: string, limit?: number) {
      return page(chain.coins(owner, coinType ?? SUI_TYPE).map((c) => coinJson(c.object)), (c) => c.coinObjectId, cursor, limit);
    },
    suix_getAllCoins(owner: string, cursor?: string, limit?: number) {
      const coins = chain.ownedBy(owner).filter((o) => coinTypeOf(o.type)).sort((a, b) => (a.id < b.id ? -1 : 1));
      return page(coins.map(coinJson), (c) => c.coinObjectId, cursor, limit);
    },
    suix_getBalance: (owner: string, coinType?: string | null) => balanceJson(chain, owner, coinType ?? SUI_TYPE),
    suix_getAllBalances(owner: string) {
      const types = new Set(chain.ownedBy(owner).map((o) => coinTypeOf(o.type)).filter((t): t is string => !!t));
      return [...types].map((t) => balanceJson(chain, owner, t));
    },
    sui_getNormalizedMoveFunction(pkg: string, module: string, fn: string) {
      const sig = lookupFunction(world, pkg, module, fn);
      if (!sig) throw new RpcError(-32602, `test double: Move function ${normalizeSuiAddress(pkg)}::${module}::${fn} is not doubled`);
      return normalizedFunction(world, sig);
    },
    async sui_dryRunTransactionBlock(txB64: string) {
      const tx = await run(txB64, [], true);
      return { effects: tx.effectsJson, events: tx.events.map(eventJson), objectChanges: tx.objectChanges, balanceChanges: tx.balanceChanges };
    },
    async sui_executeTransactionBlock(txB64: string, signatures: string[], options: Options) {
      const tx = await run(txB64, signatures, false);
      return { ...txResponse(tx, options), confirmedLocalExecution: true };
    },
    sui_getTransactionBlock(digest: string, options: Options) {
      const tx = chain.transactions.get(digest);
      if (!tx) throw new RpcError(-32602, `Could not find the referenced transaction [TransactionDigest(${digest})].`);
      return txResponse(tx, options);
    },
    sui_multiGetTransactionBlocks(digests: string[], options: Options) {
      return digests.map((d) => {
        const tx = chain.transactions.get(d);
        if (!tx) throw new RpcError(-32602, `Could not find the referenced transaction [TransactionDigest(${d})].`);
        return txResponse(tx, options);
      });
    },
    suix_getDynamicFieldObject(parentId: string, name: { type: string; value: unknown }) {
      const nameType = name.type.includes('::') ? canonicalType(name.type) : name.type;
      const id = deriveDynamicFieldID(parentId, nameType, nameBcs(name));
      return objectResponse(chain, id, { showType: true, showOwner: true, showPreviousTransaction: true, showStorageRebate: true, showBcs: true });
    },
    suix_getDynamicFields(parentId: string, cursor?: string, limit?: number) {
      const parent = normalizeSuiAddress(parentId);
      const fields = [...chain.objects.values()]
        .filter((o) => 'ObjectOwner' in o.owner && o.owner.ObjectOwner === parent && o.type.includes('::dynamic_field::Field<'))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const p = page(fields, (o) => o.id, cursor, limit);
      return { data: p.data.map((o) => dynamicFieldInfo(chain, o)), nextCursor: p.nextCursor, hasNextPage: p.hasNextPage };
    },
  };
}

/** DynamicFieldInfo of a Field object whose name is a pure value or a dynamic-object-field ID. */
function dynamicFieldInfo(chain: Chain, o: SuiObject): Record<string, unknown> {
  const inner = o.type.slice(o.type.indexOf('<') + 1, -1);
  let depth = 0;
  let split = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '<') depth++;
    else if (inner[i] === '>') depth--;
    else if (inner[i] === ',' && depth === 0) {
      split = i;
      break;
    }
  }
  let nameType = inner.slice(0, split).trim();
  const valueType = inner.slice(split + 1).trim();
  const wrapper = nameType.match(/::dynamic_object_field::Wrapper<(.*)>$/);
  if (wrapper) nameType = wrapper[1]!;
  const rest = o.contents.subarray(32);
  const schema: BcsType<any, any> = nameType === canonicalType('0x2::object::ID') ? bcs.Address : pureBcsSchemaFromTypeName(nameType as 'u64');
  const value = schema.parse(rest);
  const bcsName = schema.serialize(value).toBytes();
  const objectId = wrapper ? bcs.Address.parse(rest.subarray(bcsName.length)) : o.id;
  const target = chain.get(objectId) ?? o;
  return {
    name: { type: nameType.includes('::') ? displayType(nameType) : nameType, value },
    bcsEncoding: 'base64',
    bcsName: toBase64(bcsName),
    type: wrapper ? 'DynamicObject' : 'DynamicField',
    objectType: displayType(wrapper ? target.type : valueType),
    objectId,
    version: Number(target.version),
    digest: target.digest,
  };
}

export interface SuiRpcServer {
  url: string;
  close(): Promise<void>;
}

export async function startSuiRpc(chain: Chain, world: World): Promise<SuiRpcServer> {
  const methods = rpcMethods(chain, world);
  const answer = async (request: { id?: unknown; method?: string; params?: unknown[] }) => {
    const id = request.id ?? null;
    const method = methods[request.method ?? ''];
    if (!method) return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${request.method} (not doubled by the Walrus test double)` } };
    try {
      return { jsonrpc: '2.0', id, result: await method(...(request.params ?? [])) };
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      return { jsonrpc: '2.0', id, error: { code, message: (error as Error).message } };
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: unknown;
        try {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          body = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed as never);
        } catch {
          body = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
