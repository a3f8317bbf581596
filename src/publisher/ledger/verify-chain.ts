// Walks the whole transaction log and checks every link of the hash chain: each body hashes to
// its digest, points at the previous digest and effects digest, its created object ids derive
// from its digest, and the wallet balance carries over from one transaction to the next.

import { deriveObjectId, effectsDigestOf, txDigestOf, ZERO_DIGEST } from './ids.js';
import type { LedgerDb } from './ledger-db.js';
import { readHead, readState } from './transaction-log.js';
import type { ChainReport } from './types.js';

/** Records checked between two yields to the event loop. */
const BATCH = 512;

export async function verifyChain(db: LedgerDb): Promise<ChainReport> {
  const head = readHead(db);
  let prevDigest = ZERO_DIGEST;
  let prevEffectsDigest = ZERO_DIGEST;
  let balance = 0n;
  let seq = 0;
  for (;;) {
    const batch = [...db.transactions.getRange({ start: seq, limit: BATCH })];
    if (batch.length === 0) break;
    for (const { key, value: tx } of batch) {
      const fail = (reason: string): ChainReport => ({ ok: false, seq: key, reason });
      if (key !== seq || tx.body.seq !== seq) return fail(`expected transaction ${seq}, found ${key} (body says ${tx.body.seq})`);
      if (tx.body.prevDigest !== prevDigest) return fail('prevDigest does not match the previous transaction digest');
      if (tx.body.prevEffectsDigest !== prevEffectsDigest) return fail('prevEffectsDigest does not match the previous effects');
      const digest = txDigestOf(tx.body);
      if (digest !== tx.digest) return fail(`body hashes to ${digest}, recorded digest is ${tx.digest}`);
      if (db.digests.get(digest) !== seq) return fail('digest index does not point at this transaction');
      const effectsDigest = effectsDigestOf(tx.effects);
      if (effectsDigest !== tx.effectsDigest) return fail('effects do not hash to the recorded effects digest');
      const badId = tx.effects.created.findIndex((id, i) => id !== deriveObjectId(digest, i));
      if (badId !== -1) return fail(`created object ${badId} is not derived from the digest`);
      balance += BigInt(tx.effects.balanceChange);
      if (String(balance) !== tx.effects.balanceAfter) return fail('balanceAfter does not follow from the previous balance');
      prevDigest = digest;
      prevEffectsDigest = effectsDigest;
      seq++;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (head.seq !== seq - 1 || head.digest !== prevDigest || head.effectsDigest !== prevEffectsDigest) {
    return { ok: false, seq: head.seq, reason: 'the chain head does not match the last transaction' };
  }
  const state = readState(db);
  if (state !== undefined && state.balance !== String(balance)) {
    return { ok: false, seq: seq - 1, reason: 'the wallet balance does not match the log' };
  }
  return { ok: true, transactions: seq, headDigest: prevDigest };
}
