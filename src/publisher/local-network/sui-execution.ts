// Execution of signed programmable transactions against the double's ledger: decode the
// TransactionData BCS, verify the sender's signature, check inputs and gas, run the commands
// (SplitCoins, MergeCoins, TransferObjects, and Move calls through the table walrus-calls.ts
// gives), charge gas in SUI, and produce TransactionEffects V2 (BCS), events and balance changes
// (sui-grpc.ts renders them as the gRPC API's messages). Facts from MystenLabs/sui:
// - crates/sui-types/src/effects/effects_v2.rs: changed objects sorted by id, input Exist/NotExist,
//   output ObjectWrite/NotExist, IDOperation, Lamport version = 1 + max input version, the gas
//   object's index, read-only shared inputs as ReadOnlyRoot; execution_status.rs: the failure
//   kinds (MoveAbort with its MoveLocation, CommandArgumentError, InsufficientCoinBalance,
//   UnusedValueWithoutDrop, InsufficientGas …) and their text "… in command N".
// - crates/sui-adapter (temporary_store.rs, programmable_transactions): a failed transaction still
//   writes its mutable inputs (new version) and pays gas; extra gas coins are smashed into the
//   first; the gas coin is taken by value only by TransferObjects; values without drop cannot be
//   left in the PTB.
// - crates/sui-types/src/gas_model/gas_v2.rs: computation = price × units (min 1000 units), storage
//   = metered bytes × 100 × 76 per written object, rebate 99 % of the replaced objects' rebates,
//   and the storage cost net of the rebate must fit in what computation left of the budget.
// - a dry run without gas payment runs on a mock gas coin holding the budget (the gRPC API's
//   SimulateTransaction without do_gas_selection does the same).

import { bcs } from '@mysten/sui/bcs';
import { TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, normalizeSuiAddress, toBase58 } from '@mysten/sui/utils';
import { verifyTransactionSignature } from '@mysten/sui/verify';
import { GAS, storageCost, type Chain, type EventRecord, type SuiObject, type TxRecord } from './chain.js';
import { lookupFunction, substitute, type World } from './genesis.js';
import { balanceChanges, effectsChange, failedChanges, gasCharge, successChanges, WRITES, type GasCharge } from './sui-changes.js';
import { canonicalType, Coin, coinTypeOf, DELETED_DIGEST, deriveObjectId, hashTyped, objectDigest, structTagOf, TransactionEvents, WRAPPED_DIGEST } from './sui-formats.js';
import { argError, decodePure, ExecutionFailure, obj, pureSchema, RejectedTransaction, Session, simpleFailure, type Live, type MoveCalls, type Slot, type Value } from './sui-session.js';


export interface ExecuteOptions {
  dryRun: boolean;
  signatures: string[];
}

export async function runTransaction(chain: Chain, world: World, txBytes: Uint8Array, opts: ExecuteOptions, calls: MoveCalls): Promise<TxRecord> {
  const data = bcs.TransactionData.parse(txBytes);
  const v1 = data.V1;
  if (!v1) throw new RejectedTransaction('unsupported TransactionData version');
  const pt = v1.kind.ProgrammableTransaction;
  if (!pt) throw new RejectedTransaction(`transaction kind ${v1.kind.$kind} is not supported by the local network`);
  const digest = TransactionDataBuilder.getDigestFromBytes(txBytes);
  const sender = normalizeSuiAddress(v1.sender);
  if (!opts.dryRun) {
    const known = chain.transactions.get(digest);
    if (known) return known;
    if (normalizeSuiAddress(v1.gasData.owner) !== sender) throw new RejectedTransaction('sponsored transactions are not supported by the local network');
    if (opts.signatures.length !== 1) throw new RejectedTransaction(`Expected 1 signature, got ${opts.signatures.length}`);
    try {
      await verifyTransactionSignature(txBytes, opts.signatures[0]!, { address: sender });
    } catch (error) {
      throw new RejectedTransaction(`Invalid user signature: ${(error as Error).message}`);
    }
  }
  // from here on nothing awaits: the transaction runs against one state of the ledger
  if (v1.expiration.$kind === 'Epoch' && BigInt(v1.expiration.Epoch) < chain.suiEpoch) throw new RejectedTransaction('Transaction Expired');
  const price = BigInt(v1.gasData.price);
  const budget = BigInt(v1.gasData.budget);
  if (price < GAS.referenceGasPrice) throw new RejectedTransaction(`Gas price ${price} under reference gas price (RGP) ${GAS.referenceGasPrice}`);
  const computation = price * GAS.minComputationUnits;
  if (budget < computation) throw new RejectedTransaction(`Gas budget: ${budget} is lower than min: ${computation}.`);
  if (budget > GAS.maxGasBudget) throw new RejectedTransaction(`Gas budget: ${budget} is higher than max: ${GAS.maxGasBudget}.`);

  const s = new Session(chain, world, digest, sender, calls);
  const suiCoinType = s.types.suiCoin;

  // gas coins; extra coins are smashed into the first
  const seen = new Set<string>();
  const gasCoins = v1.gasData.payment.map((ref) => {
    const o = checkOwnedRef(chain, ref, sender, seen);
    if (o.type !== suiCoinType) throw new RejectedTransaction(`Gas object ${o.id} is not a gas coin`);
    return s.track(o, true, true);
  });
  if (gasCoins.length === 0) {
    if (!opts.dryRun) throw new RejectedTransaction('Transaction needs at least one gas coin');
    // a dry run without payment runs on a mock gas coin holding the budget
    const id = deriveObjectId(digest, 0xffffffff);
    const mock = { id, version: 0n, owner: { AddressOwner: sender }, type: suiCoinType, hasPublicTransfer: true, contents: Coin.serialize({ id, balance: { value: budget } }).toBytes(), previousTransaction: chain.genesisDigest, storageRebate: 0n };
    gasCoins.push(s.track({ ...mock, digest: objectDigest(mock) }, true, true));
  }
  const gas = gasCoins[0]!;
  s.gasId = gas.id;
  const gasTotal = gasCoins.reduce((n, c) => n + BigInt(c.value.balance.value), 0n);
  if (gasTotal < budget) throw new RejectedTransaction(`Balance of gas object ${gas.id} is lower than the needed amount: ${budget}`);
  gas.value.balance.value = gasTotal;
  for (const extra of gasCoins.slice(1)) {
    extra.state = 'deleted';
    s.gasExtras.add(extra.id);
  }

  // inputs
  const inputs: Slot[] = [];
  for (const arg of pt.inputs) {
    if (arg.Pure) {
      inputs.push({ v: { k: 'pure', bytes: fromBase64(arg.Pure.bytes) }, moved: false });
      continue;
    }
    const ref = arg.Object!;
    if (ref.ImmOrOwnedObject) {
      const o = checkOwnedRef(chain, ref.ImmOrOwnedObject, sender, seen);
      s.track(o, !('Immutable' in o.owner), true);
      inputs.push({ v: { k: 'obj', id: o.id }, moved: false });
    } else if (ref.SharedObject) {
      const id = normalizeSuiAddress(ref.SharedObject.objectId);
      const o = chain.get(id);
      if (!o || !('Shared' in o.owner)) throw new RejectedTransaction(`Object ${id} is not a shared object`);
      if (BigInt(o.owner.Shared.initialSharedVersion) !== BigInt(ref.SharedObject.initialSharedVersion))
        throw new RejectedTransaction(`Shared object ${id} has initial shared version ${o.owner.Shared.initialSharedVersion}, not ${ref.SharedObject.initialSharedVersion}`);
      if (seen.has(id)) throw new RejectedTransaction(`Duplicate object ref input ${id}`);
      seen.add(id);
      s.track(o, ref.SharedObject.mutable, true);
      inputs.push({ v: { k: 'obj', id: o.id }, moved: false });
    } else {
      throw new RejectedTransaction('receiving inputs are not supported by the local network');
    }
  }
  const inputObjects = [...s.live.values()].map((l) => l.before!);
  const lamport = inputObjects.reduce((m, o) => (o.version > m ? o.version : m), 0n) + 1n;
  s.lamport = lamport;

  // run the commands
  let failure: { error: ExecutionFailure; command: number | null } | null = null;
  try {
    runCommands(s, pt.commands, inputs, gas);
  } catch (error) {
    if (!(error instanceof ExecutionFailure)) throw error;
    failure = { error, command: (error as ExecutionFailure & { command?: number }).command ?? null };
  }

  // gas: computation + storage of what is written − 99 % of the rebates of what it replaces
  let changes = failure ? failedChanges(s, gas, gasTotal) : successChanges(s);
  let charge = gasCharge(s, changes, computation);
  // gas_v2.rs charge_storage_and_rebate: the storage cost net of the sender's rebate must fit in what
  // computation left of the budget (and the gas coin must still hold it)
  const over = (c: GasCharge) => c.computation + c.storage - c.rebate > budget || BigInt(gas.value.balance.value) < c.computation + c.storage - c.rebate;
  if (!failure && over(charge)) {
    failure = { error: simpleFailure('InsufficientGas'), command: null };
    changes = failedChanges(s, gas, gasTotal);
    charge = gasCharge(s, changes, computation);
  }
  let net = charge.computation + charge.storage - charge.rebate;
  if (net > budget) net = budget;
  gas.value.balance.value = BigInt(gas.value.balance.value) - net;

  // the written objects, at the Lamport version
  for (const c of changes) {
    if (!WRITES.has(c.kind)) continue;
    const live = s.live.get(c.id)!;
    const contents = s.codec(live.type).serialize(live.value).toBytes();
    const fields = {
      id: live.id,
      version: lamport,
      owner: live.owner!,
      type: live.type,
      hasPublicTransfer: c.before?.hasPublicTransfer ?? !live.type.includes('::dynamic_field::Field<'),
      contents,
      previousTransaction: digest,
      storageRebate: storageCost(live.type, contents),
    };
    c.after = { ...fields, digest: objectDigest(fields) };
  }

  const timestampMs = Date.now();
  const events: EventRecord[] = failure
    ? []
    : s.events.map((e, i) => ({ txDigest: digest, eventSeq: i, packageId: e.packageId, module: e.module, sender, type: e.type, bcs: e.bcs, parsedJson: e.json, timestampMs }));
  const eventsDigest = events.length
    ? toBase58(hashTyped('TransactionEvents', TransactionEvents.serialize({ data: events.map((e) => ({ packageId: e.packageId, transactionModule: e.module, sender, type: structTagOf(e.type), contents: e.bcs })) }).toBytes()))
    : null;
  const sorted = [...changes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const gasChange = sorted.find((c) => c.id === gas.id)!;
  const readOnlyShared = [...s.live.values()].filter((l) => l.input && !l.mutable && 'Shared' in l.before!.owner).map((l) => l.before!);
  const dependencies = [...new Set(inputObjects.filter((o) => o.version > 0n).map((o) => o.previousTransaction))];
  const gasUsed = { computationCost: charge.computation, storageCost: charge.storage, storageRebate: charge.rebate, nonRefundableStorageFee: charge.nonRefundable };

  const effectsBcs = bcs.TransactionEffects.serialize({
    V2: {
      status: failure ? { Failure: { error: failure.error.status, command: failure.command } } : { Success: true },
      executedEpoch: chain.suiEpoch,
      gasUsed,
      transactionDigest: digest,
      gasObjectIndex: sorted.indexOf(gasChange),
      eventsDigest,
      dependencies,
      lamportVersion: lamport,
      changedObjects: sorted.map((c) => [c.id, effectsChange(c)]),
      unchangedConsensusObjects: readOnlyShared.map((o) => [o.id, { ReadOnlyRoot: [o.version, o.digest] }]),
      auxDataDigest: null,
    },
  } as any).toBytes();

  const record: TxRecord = {
    digest,
    txBytes,
    signatures: opts.signatures,
    effectsBcs,
    failure: failure && { status: failure.error.status, command: failure.command, description: `${failure.error.message}${failure.command !== null ? ` in command ${failure.command}` : ''}` },
    objectTypes: Object.fromEntries(sorted.map((c) => [c.id, c.type])),
    events,
    balanceChanges: balanceChanges(changes),
    timestampMs,
    checkpoint: chain.checkpoint + 1,
    success: !failure,
  };
  if (!opts.dryRun) {
    for (const c of changes) {
      if (c.after) chain.write(c.after);
      else if (c.before) chain.remove(c.id, lamport, c.kind === 'wrapped' ? WRAPPED_DIGEST : DELETED_DIGEST);
    }
    chain.checkpoint += 1;
    chain.record(record);
  }
  return record;
}

function checkOwnedRef(chain: Chain, ref: { objectId: string; version: string | number | bigint; digest: string }, sender: string, seen: Set<string>): SuiObject {
  const id = normalizeSuiAddress(ref.objectId);
  if (seen.has(id)) throw new RejectedTransaction(`Duplicate object ref input ${id}`);
  seen.add(id);
  const o = chain.get(id);
  if (!o) {
    const gone = chain.removed.get(id);
    throw new RejectedTransaction(gone ? `Object ${id} was deleted or wrapped at version ${gone.version}` : `Could not find the referenced object ${id}`);
  }
  if (o.version !== BigInt(ref.version) || o.digest !== ref.digest)
    throw new RejectedTransaction(`Object ID ${id} Version ${ref.version} Digest ${ref.digest} is not available for consumption, current version: ${o.version}`);
  if ('AddressOwner' in o.owner) {
    if (o.owner.AddressOwner !== sender) throw new RejectedTransaction(`Object ${id} is owned by account address ${o.owner.AddressOwner}, but given owner/signer address is ${sender}`);
  } else if (!('Immutable' in o.owner)) {
    throw new RejectedTransaction(`Object ${id} is not an address-owned or immutable object`);
  }
  return o;
}

type SlotOf = (arg: any, argIdx: number) => Slot;
type ObjectArg = (sl: Slot, argIdx: number, ref: '&' | '&mut' | null) => Live;
type PureArg = (sl: Slot, argIdx: number, type: string, byRef: boolean) => any;

function runCommands(s: Session, commands: any[], inputs: Slot[], gas: Live): void {
  const results: Slot[][] = [];
  const gasSlot: Slot = { v: { k: 'obj', id: gas.id }, moved: false };
  const slot: SlotOf = (arg, argIdx) => {
    switch (arg.$kind) {
      case 'GasCoin':
        return gasSlot;
      case 'Input': {
        const got = inputs[arg.Input];
        if (!got) throw argError(argIdx, 'IndexOutOfBounds');
        return got;
      }
      case 'Result': {
        const got = results[arg.Result];
        if (!got || got.length !== 1) throw argError(argIdx, got ? 'InvalidResultArity' : 'IndexOutOfBounds');
        return got[0]!;
      }
      default: {
        const [r, i] = arg.NestedResult as [number, number];
        const got = results[r]?.[i];
        if (!got) throw argError(argIdx, 'SecondaryIndexOutOfBounds');
        return got;
      }
    }
  };
  const objectArg: ObjectArg = (sl, argIdx, ref) => {
    if (sl.moved) throw argError(argIdx, 'InvalidValueUsage');
    if (sl.v.k !== 'obj') throw argError(argIdx, 'TypeMismatch');
    const live = s.live.get(sl.v.id)!;
    if (live.state !== 'live') throw argError(argIdx, 'InvalidValueUsage');
    if (ref === '&mut' && !live.mutable) throw argError(argIdx, 'InvalidObjectByMutRef');
    if (ref === null) {
      if (live.input && !('AddressOwner' in live.before!.owner)) throw argError(argIdx, 'InvalidObjectByValue');
      sl.moved = true;
    }
    return live;
  };
  const pureArg: PureArg = (sl, argIdx, type, byRef) => {
    if (sl.v.k === 'pure') return decodePure(type, sl.v.bytes, argIdx);
    if (sl.v.k === 'val' && sl.v.type === type) {
      if (sl.moved) throw argError(argIdx, 'InvalidValueUsage');
      if (!byRef) sl.moved = true;
      return sl.v.value;
    }
    throw argError(argIdx, 'TypeMismatch');
  };

  commands.forEach((command, index) => {
    try {
      results.push(runCommand(s, command, slot, objectArg, pureArg));
    } catch (error) {
      if (error instanceof ExecutionFailure) Object.assign(error, { command: index });
      throw error;
    }
  });

  // objects (no `drop`) left in the PTB: not transferred, wrapped or deleted
  const unused = (resultIdx: number, secondaryIdx: number) =>
    new ExecutionFailure({ UnusedValueWithoutDrop: { resultIdx, secondaryIdx } }, `UnusedValueWithoutDrop { result_idx: ${resultIdx}, secondary_idx: ${secondaryIdx} }`);
  results.forEach((slots, resultIdx) =>
    slots.forEach((sl, secondaryIdx) => {
      if (sl.moved || sl.v.k !== 'obj') return;
      const live = s.live.get(sl.v.id)!;
      if (live.state === 'live' && live.owner === null) throw unused(resultIdx, secondaryIdx);
    }),
  );
  for (const live of s.live.values()) if (live.state === 'live' && live.owner === null) throw unused(0, 0);
}

function runCommand(s: Session, command: any, slot: SlotOf, objectArg: ObjectArg, pureArg: PureArg): Slot[] {
  const out = (values: Value[]): Slot[] => values.map((v) => ({ v, moved: false }));
  switch (command.$kind) {
    case 'SplitCoins': {
      const coin = objectArg(slot(command.SplitCoins.coin, 0), 0, '&mut');
      if (!coinTypeOf(coin.type)) throw argError(0, 'TypeMismatch');
      coin.written = true;
      return out(
        command.SplitCoins.amounts.map((a: any, i: number) => {
          const amount: bigint = pureArg(slot(a, i + 1), i + 1, 'u64', false);
          const balance = BigInt(coin.value.balance.value);
          if (balance < amount) throw simpleFailure('InsufficientCoinBalance');
          coin.value.balance.value = balance - amount;
          const id = s.fresh();
          return obj(s.create(coin.type, { id, balance: { value: amount } }, id));
        }),
      );
    }
    case 'MergeCoins': {
      const dest = objectArg(slot(command.MergeCoins.destination, 0), 0, '&mut');
      if (!coinTypeOf(dest.type)) throw argError(0, 'TypeMismatch');
      dest.written = true;
      command.MergeCoins.sources.forEach((a: any, i: number) => {
        const src = objectArg(slot(a, i + 1), i + 1, null);
        if (src.id === s.gasId) throw argError(i + 1, 'InvalidGasCoinUsage');
        if (src.type !== dest.type) throw argError(i + 1, 'TypeMismatch');
        if (src === dest) throw argError(i + 1, 'InvalidValueUsage');
        const sum = BigInt(dest.value.balance.value) + BigInt(src.value.balance.value);
        if (sum >= 1n << 64n) throw simpleFailure('CoinBalanceOverflow');
        dest.value.balance.value = sum;
        src.state = 'deleted';
      });
      return [];
    }
    case 'TransferObjects': {
      const n = command.TransferObjects.objects.length;
      const address = normalizeSuiAddress(pureArg(slot(command.TransferObjects.address, n), n, 'address', false));
      command.TransferObjects.objects.forEach((a: any, i: number) => {
        const live = objectArg(slot(a, i), i, null);
        live.owner = { AddressOwner: address };
        live.written = true;
      });
      return [];
    }
    case 'MoveCall': {
      const call = command.MoveCall;
      const pkg = normalizeSuiAddress(call.package);
      const sig = lookupFunction(s.world, pkg, call.module, call.function);
      const fn = s.calls(pkg, call.module, call.function);
      if (!sig || !fn) throw new RejectedTransaction(`Move function ${pkg}::${call.module}::${call.function} is not supported by the local network`);
      const typeArgs = (call.typeArguments as string[]).map(canonicalType);
      if (typeArgs.length !== (sig.typeParams ?? 0)) throw simpleFailure('TypeArityMismatch');
      const params = sig.params.filter((p) => !p.endsWith('tx_context::TxContext'));
      if (params.length !== call.arguments.length) throw simpleFailure('ArityMismatch');
      s.callPackage = pkg;
      s.callModule = call.module;
      const metadataType = s.types.metadata;
      const args = params.map((p, i) => {
        const ref = p.startsWith('&mut ') ? '&mut' : p.startsWith('&') ? '&' : null;
        const bare = substitute(s.world, p.replace(/^&(mut )?/, ''), typeArgs);
        const type = bare.includes('::') ? canonicalType(bare) : bare;
        const sl = slot(call.arguments[i], i);
        if (pureSchema(type)) return pureArg(sl, i, type, ref !== null);
        if (type === metadataType) {
          if (sl.moved || sl.v.k !== 'val' || sl.v.type !== metadataType) throw argError(i, sl.moved ? 'InvalidValueUsage' : 'TypeMismatch');
          sl.moved = true;
          return sl.v.value;
        }
        const live = objectArg(sl, i, ref);
        if (ref === null && live.id === s.gasId) throw argError(i, 'InvalidGasCoinUsage');
        if (live.type !== type) throw argError(i, 'TypeMismatch');
        if (ref === '&mut') live.written = true;
        return live;
      });
      const values = fn(s, args, typeArgs);
      return out(values.map((v) => (v.k === 'val' && v.type === '' ? { ...v, type: metadataType } : v)));
    }
    default:
      throw new RejectedTransaction(`command ${command.$kind} is not supported by the local network`);
  }
}
