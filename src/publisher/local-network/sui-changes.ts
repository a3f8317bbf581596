// What a transaction changed, for its effects (sui-execution.ts): the objects it created, mutated,
// deleted, wrapped or unwrapped (or, when it failed, only its mutable inputs and the smashed gas
// coins), the storage it is charged and rebated (the constants of chain.ts) and the net balance
// changes per address and coin type (sui.rpc.v2 balance_change.proto).

import { coinBalance, GAS, storageCost, type SuiObject } from './chain.js';
import type { Live, Session } from './sui-session.js';
import { coinTypeOf } from './sui-formats.js';

type ChangeKind = 'created' | 'mutated' | 'unwrapped' | 'deleted' | 'wrapped' | 'unwrappedThenDeleted';
export const WRITES = new Set<ChangeKind>(['created', 'mutated', 'unwrapped']);

export interface Change {
  id: string;
  type: string;
  kind: ChangeKind;
  before?: SuiObject;
  after?: SuiObject;
}

export interface GasCharge {
  computation: bigint;
  storage: bigint;
  rebate: bigint;
  nonRefundable: bigint;
}

export function successChanges(s: Session): Change[] {
  const changes: Change[] = [];
  for (const live of s.live.values()) {
    const { id, type, before } = live;
    if (before) {
      if (live.state === 'deleted') changes.push({ id, type, before, kind: 'deleted' });
      else if (live.state === 'wrapped') changes.push({ id, type, before, kind: 'wrapped' });
      else if (live.mutable && (live.input || live.written)) changes.push({ id, type, before, kind: 'mutated' });
    } else if (s.created.has(id)) {
      if (live.state === 'live') changes.push({ id, type, kind: 'created' });
    } else if (live.state === 'live') {
      changes.push({ id, type, kind: 'unwrapped' });
    } else if (live.state === 'deleted') {
      changes.push({ id, type, kind: 'unwrappedThenDeleted' });
    }
  }
  return changes;
}

/** A failed transaction: its mutable inputs are written unchanged (new version), the gas coins
 * are smashed and pay. */
export function failedChanges(s: Session, gas: Live, gasTotal: bigint): Change[] {
  const changes: Change[] = [];
  for (const live of s.live.values()) {
    const before = live.before;
    if (!live.input || !before || !live.mutable) continue;
    if (live === gas) {
      Object.assign(live, { value: { id: gas.id, balance: { value: gasTotal } }, owner: before.owner, state: 'live' });
    } else if (s.gasExtras.has(live.id)) {
      changes.push({ id: live.id, type: live.type, before, kind: 'deleted' });
      continue;
    } else {
      Object.assign(live, { value: s.codec(before.type).parse(before.contents), owner: before.owner, state: 'live' });
    }
    changes.push({ id: live.id, type: live.type, before, kind: 'mutated' });
  }
  return changes;
}

export function gasCharge(s: Session, changes: Change[], computation: bigint): GasCharge {
  let storage = 0n;
  let rebateTotal = 0n;
  for (const c of changes) {
    if (c.before) rebateTotal += c.before.storageRebate;
    if (WRITES.has(c.kind)) {
      const live = s.live.get(c.id)!;
      storage += storageCost(live.type, s.codec(live.type).serialize(live.value).toBytes());
    }
  }
  const rebate = (rebateTotal * GAS.storageRebateRateBps) / 10_000n;
  return { computation, storage, rebate, nonRefundable: rebateTotal - rebate };
}

export function effectsChange(c: Change) {
  return {
    inputState: c.before ? { Exist: [[c.before.version, c.before.digest], c.before.owner] } : { NotExist: true },
    outputState: c.after ? { ObjectWrite: [c.after.digest, c.after.owner] } : { NotExist: true },
    idOperation: c.kind === 'created' ? { Created: true } : c.kind === 'deleted' || c.kind === 'unwrappedThenDeleted' ? { Deleted: true } : { None: true },
  };
}

/** BalanceChange (sui.rpc.v2 balance_change.proto): per address and coin type, the net change. */
export function balanceChanges(changes: Change[]): { address: string; coin_type: string; amount: string }[] {
  const deltas = new Map<string, bigint>();
  const add = (o: SuiObject | undefined, sign: bigint) => {
    const coinType = o && coinTypeOf(o.type);
    if (!o || !coinType || !('AddressOwner' in o.owner)) return;
    const key = `${o.owner.AddressOwner}|${coinType}`;
    deltas.set(key, (deltas.get(key) ?? 0n) + sign * coinBalance(o));
  };
  for (const c of changes) {
    add(c.before, -1n);
    add(c.after, 1n);
  }
  return [...deltas]
    .filter(([, amount]) => amount !== 0n)
    .map(([key, amount]) => {
      const [owner, coinType] = key.split('|') as [string, string];
      return { address: owner, coin_type: coinType, amount: String(amount) };
    });
}
