import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { txDigestOf } from '../../../../src/publisher/ledger/ids.js';
import { openLedgerDb, type LedgerDb, type StoredTransaction } from '../../../../src/publisher/ledger/ledger-db.js';
import { LedgerError } from '../../../../src/publisher/ledger/index.js';
import { BLOB_A, BLOB_B, makeFixture, QUORUM_1000, SMALL, type Fixture } from './ledger-fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
  const a = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: false }); // seq 1
  await fx.ledger.certifyBlob(a.blobObject.id, QUORUM_1000); // seq 2
  await fx.ledger.registerBlob({ blobId: BLOB_B, ...SMALL, epochs: 1, deletable: true }); // seq 3
  expect(await fx.ledger.verifyChain()).toMatchObject({ ok: true, transactions: 4 });
  await fx.ledger.close();
});
afterEach(async () => {
  await fx.cleanup();
});

/** Edits the stored log behind the ledger's back, as a tamperer with file access would. */
async function tamper(edit: (db: LedgerDb) => void): Promise<void> {
  const db = openLedgerDb(fx.dir);
  await db.env.transaction(() => edit(db));
  await db.env.close();
}

function tx(db: LedgerDb, seq: number): StoredTransaction {
  return structuredClone(db.transactions.get(seq)!);
}

describe('hash chain', () => {
  it('links every transaction to the digest and effects of the one before', async () => {
    fx.ledger = await fx.open();
    const db = openLedgerDb(fx.dir, true);
    for (let seq = 1; seq < 4; seq++) {
      expect(db.transactions.get(seq)!.body.prevDigest).toBe(db.transactions.get(seq - 1)!.digest);
      expect(db.transactions.get(seq)!.body.prevEffectsDigest).toBe(db.transactions.get(seq - 1)!.effectsDigest);
    }
    await db.env.close();
  });

  it('detects an edited input', async () => {
    await tamper((db) => {
      const t = tx(db, 1);
      t.body.inputs.size = 18;
      db.transactions.put(1, t);
    });
    fx.ledger = await fx.open();
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: false, seq: 1, reason: expect.stringContaining('hashes to') });
  });

  it('detects an edited event', async () => {
    await tamper((db) => {
      const t = tx(db, 2);
      (t.effects.events[0]!.data as { endEpoch: number }).endEpoch = 99;
      db.transactions.put(2, t);
    });
    fx.ledger = await fx.open();
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: false, seq: 2, reason: expect.stringContaining('effects') });
  });

  it('detects a record re-hashed by the tamperer through the next link', async () => {
    await tamper((db) => {
      const t = tx(db, 1);
      t.body.inputs.epochsAhead = 50;
      t.digest = txDigestOf(t.body);
      db.transactions.put(1, t);
      db.digests.put(t.digest, 1);
    });
    fx.ledger = await fx.open();
    const report = await fx.ledger.verifyChain();
    expect(report.ok).toBe(false);
    // the re-hashed record's created ids no longer derive from its digest, and seq 2 points at the old digest
    expect(report).toMatchObject({ seq: 1, reason: expect.stringContaining('derived') });
  });

  it('detects a re-hashed record without created objects at the next prevDigest', async () => {
    await tamper((db) => {
      const t = tx(db, 2);
      (t.body.inputs.certificate as { shardsCovered: number }).shardsCovered = 1000;
      t.digest = txDigestOf(t.body);
      db.transactions.put(2, t);
      db.digests.put(t.digest, 2);
    });
    fx.ledger = await fx.open();
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: false, seq: 3, reason: expect.stringContaining('prevDigest') });
  });

  it('detects a removed transaction', async () => {
    await tamper((db) => void db.transactions.remove(2));
    fx.ledger = await fx.open();
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: false, seq: 3 });
  });

  it('detects a balance that does not follow from the log', async () => {
    await tamper((db) => {
      const state = structuredClone(db.meta.get('state')) as { balance: string };
      state.balance = '1000000000000000';
      db.meta.put('state', state);
    });
    fx.ledger = await fx.open();
    expect(await fx.ledger.verifyChain()).toMatchObject({ ok: false, reason: expect.stringContaining('balance') });
  });

  it('refuses to open when the last transaction does not match the head', async () => {
    await tamper((db) => {
      const t = tx(db, 3);
      t.body.timestampMs += 1;
      db.transactions.put(3, t);
    });
    const error = await fx.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('LedgerCorrupt');
  });
});
