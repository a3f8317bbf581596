// Appending to the hash-chained transaction log. One state change = one transaction record,
// written in one LMDB write transaction together with every object and index update it causes.
//
// lmdb-js does not roll back writes when a transaction callback throws, so every operation is
// split into a plan (reads and validation; may throw) and an apply step (builds the effects and
// writes; never throws). The digest covers the body (inputs and `prevDigest`/`prevEffectsDigest`);
// object ids derive from the digest, and the effects digest is chained into the next body.

import type { JsonObject } from './canonical-json.js';
import { epochAt, GENESIS_EPOCH } from './epoch-clock.js';
import { LedgerError } from './errors.js';
import { deriveObjectId, effectsDigestOf, txDigestOf, ZERO_DIGEST } from './ids.js';
import type { ChainHead, LedgerDb, LedgerState, StoredTransaction } from './ledger-db.js';
import type { LedgerEventBody, TransactionBody, TransactionEffects, TransactionKind } from './types.js';

export interface PlanContext {
  db: LedgerDb;
  state: LedgerState;
  epoch: number;
  timestampMs: number;
}

export interface TxContext extends PlanContext {
  seq: number;
  digest: string;
  /** id of the next object this transaction creates, in creation order */
  newObjectId(): string;
}

export interface Applied<R> {
  created: string[];
  mutated: string[];
  events: LedgerEventBody[];
  /** puts and removes of objects and indexes; runs inside the write transaction */
  write(): void;
  /** fields of the ledger state this transaction changes (the balance is handled here) */
  state?: Partial<Omit<LedgerState, 'balance'>>;
  result: R;
}

export interface Plan<R> {
  kind: TransactionKind;
  inputs: JsonObject;
  /** FROST credited (positive) or debited (negative) */
  balanceChange: bigint;
  apply(tx: TxContext): Applied<R>;
}

export const STATE_KEY = 'state';
export const HEAD_KEY = 'head';
export const FORMAT_KEY = 'format';

/** The head before the first transaction. */
export const EMPTY_HEAD: ChainHead = { seq: -1, digest: ZERO_DIGEST, effectsDigest: ZERO_DIGEST, epoch: GENESIS_EPOCH };

export function readState(db: LedgerDb): LedgerState | undefined {
  return db.meta.get(STATE_KEY) as LedgerState | undefined;
}

export function readHead(db: LedgerDb): ChainHead {
  return (db.meta.get(HEAD_KEY) as ChainHead | undefined) ?? EMPTY_HEAD;
}

/**
 * Runs `makePlan` and appends its transaction atomically; resolves once durably committed.
 * `initialState` is the state the genesis transaction starts from.
 */
export function appendTransaction<R>(
  db: LedgerDb,
  now: () => number,
  makePlan: (ctx: PlanContext) => Plan<R>,
  initialState?: LedgerState,
): Promise<R> {
  return db.env.transaction(() => {
    const state = readState(db) ?? initialState;
    if (state === undefined) throw new LedgerError('LedgerCorrupt', {}, 'the ledger has no state record');
    const head = readHead(db);
    const timestampMs = now();
    // Epochs never go back, even if the wall clock does.
    const epoch = Math.max(epochAt(state.clock, timestampMs), head.epoch);
    const plan = makePlan({ db, state, epoch, timestampMs });
    const balanceBefore = BigInt(state.balance);
    const balanceAfter = balanceBefore + plan.balanceChange;
    if (balanceAfter < 0n) {
      throw new LedgerError('InsufficientBalance', { balance: state.balance, required: String(-plan.balanceChange) });
    }

    const body: TransactionBody = {
      seq: head.seq + 1,
      kind: plan.kind,
      timestampMs,
      epoch,
      sender: state.publisherAddress,
      inputs: plan.inputs,
      prevDigest: head.digest,
      prevEffectsDigest: head.effectsDigest,
    };
    const digest = txDigestOf(body);
    let created = 0;
    const applied = plan.apply({
      db,
      state,
      epoch,
      timestampMs,
      seq: body.seq,
      digest,
      newObjectId: () => deriveObjectId(digest, created++),
    });
    const effects: TransactionEffects = {
      created: applied.created,
      mutated: applied.mutated,
      balanceChange: String(plan.balanceChange),
      balanceAfter: String(balanceAfter),
      events: applied.events,
    };
    const effectsDigest = effectsDigestOf(effects);
    const record: StoredTransaction = { body, digest, effects, effectsDigest };

    db.transactions.put(body.seq, record);
    db.digests.put(digest, body.seq);
    applied.write();
    const nextState: LedgerState = { ...state, ...applied.state, balance: String(balanceAfter) };
    db.meta.put(STATE_KEY, nextState);
    db.meta.put(HEAD_KEY, { seq: body.seq, digest, effectsDigest, epoch } satisfies ChainHead);
    return applied.result;
  });
}
