// Transactions that set the ledger up: genesis (first open), parameter changes on a later open,
// and funding the publisher's wallet.

import type { JsonObject } from './canonical-json.js';
import { reanchor } from './epoch-clock.js';
import { LedgerError } from './errors.js';
import type { LedgerState } from './ledger-db.js';
import { FORMAT_KEY, type Plan, type PlanContext } from './transaction-log.js';
import { LEDGER_FORMAT_VERSION } from './ledger-db.js';

/** The parameters an operator may set when opening the ledger. */
export interface LedgerParameters {
  epochLengthMs: number;
  storagePricePerUnit: bigint;
  writePricePerUnit: bigint;
  maxEpochsAhead: number;
  publisherAddress: string;
}

export function planGenesis(initialBalance: bigint, ctx: PlanContext): Plan<string> {
  const { state } = ctx;
  const data: JsonObject = {
    publisherAddress: state.publisherAddress,
    genesisMs: state.genesisMs,
    epochLengthMs: state.clock.epochLengthMs,
    storagePricePerUnit: state.storagePricePerUnit,
    writePricePerUnit: state.writePricePerUnit,
    maxEpochsAhead: state.maxEpochsAhead,
    initialBalance: String(initialBalance),
  };
  return {
    kind: 'Genesis',
    inputs: data,
    balanceChange: initialBalance,
    apply: (tx) => ({
      created: [],
      mutated: [],
      events: [{ type: 'LedgerCreated', data }],
      write: () => void tx.db.meta.put(FORMAT_KEY, LEDGER_FORMAT_VERSION),
      result: tx.digest,
    }),
  };
}

/** Differences between the stored state and `wanted`, or undefined when there are none. */
export function parameterChanges(state: LedgerState, wanted: LedgerParameters): JsonObject | undefined {
  const changes: JsonObject = {};
  if (wanted.epochLengthMs !== state.clock.epochLengthMs) changes.epochLengthMs = wanted.epochLengthMs;
  if (String(wanted.storagePricePerUnit) !== state.storagePricePerUnit) changes.storagePricePerUnit = String(wanted.storagePricePerUnit);
  if (String(wanted.writePricePerUnit) !== state.writePricePerUnit) changes.writePricePerUnit = String(wanted.writePricePerUnit);
  if (wanted.maxEpochsAhead !== state.maxEpochsAhead) changes.maxEpochsAhead = wanted.maxEpochsAhead;
  if (wanted.publisherAddress !== state.publisherAddress) changes.publisherAddress = wanted.publisherAddress;
  return Object.keys(changes).length === 0 ? undefined : changes;
}

/** Applies `changes` (from parameterChanges); a new epoch length re-anchors the clock at this transaction. */
export function planConfigure(changes: JsonObject, ctx: PlanContext): Plan<string> {
  const { state, timestampMs } = ctx;
  const next: Partial<LedgerState> = {};
  const data: JsonObject = { ...changes };
  if (typeof changes.epochLengthMs === 'number') {
    next.clock = reanchor(state.clock, timestampMs, changes.epochLengthMs);
    data.anchorMs = next.clock.anchorMs;
    data.anchorEpoch = next.clock.anchorEpoch;
  }
  if (typeof changes.storagePricePerUnit === 'string') next.storagePricePerUnit = changes.storagePricePerUnit;
  if (typeof changes.writePricePerUnit === 'string') next.writePricePerUnit = changes.writePricePerUnit;
  if (typeof changes.maxEpochsAhead === 'number') next.maxEpochsAhead = changes.maxEpochsAhead;
  if (typeof changes.publisherAddress === 'string') next.publisherAddress = changes.publisherAddress;
  return {
    kind: 'Configure',
    inputs: data,
    balanceChange: 0n,
    apply: (tx) => ({
      created: [],
      mutated: [],
      events: [{ type: 'ParametersChanged', data }],
      write: () => undefined,
      state: next,
      result: tx.digest,
    }),
  };
}

export function planFund(amount: bigint, ctx: PlanContext): Plan<string> {
  if (typeof amount !== 'bigint' || amount <= 0n) throw new LedgerError('InvalidArgument', { amount: String(amount) }, 'a funding amount is a positive bigint of FROST');
  const balance = String(BigInt(ctx.state.balance) + amount);
  return {
    kind: 'Fund',
    inputs: { amount: String(amount) },
    balanceChange: amount,
    apply: (tx) => ({
      created: [],
      mutated: [],
      events: [{ type: 'WalletFunded', data: { amount: String(amount), balance } }],
      write: () => undefined,
      result: tx.digest,
    }),
  };
}
