import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LedgerError, parseLedgerArgs, parseLedgerRoute, runLedgerCli, runLedgerQuery } from '../../../../src/publisher/ledger/index.js';
import { BLOB_A, BLOB_B, makeFixture, QUORUM_1000, SMALL, type Fixture } from './ledger-fixture.js';

describe('parsing look-ups', () => {
  it.each([
    [['tx', 'D1g'], 'transactions/D1g', { kind: 'transaction', digest: 'D1g' }],
    [['event', 'D1g', '0'], 'events/D1g/0', { kind: 'event', digest: 'D1g', eventSeq: '0' }],
    [['object', '0xab'], 'objects/0xab', { kind: 'object', id: '0xab' }],
    [['blob', BLOB_A], `blobs/${BLOB_A}`, { kind: 'blob', blobId: BLOB_A }],
    [['status'], 'status', { kind: 'status' }],
    [['verify'], 'verify', { kind: 'verify' }],
    [['expired'], 'expired/', { kind: 'expired' }],
  ])('%j and %s', (argv, route, query) => {
    expect(parseLedgerArgs(argv)).toEqual(query);
    expect(parseLedgerRoute(route)).toEqual(query);
  });

  it('rejects unknown names and wrong argument counts', () => {
    expect(parseLedgerArgs(['tx'])).toBeUndefined();
    expect(parseLedgerArgs(['event', 'x'])).toBeUndefined();
    expect(parseLedgerArgs(['transactions', 'x'])).toBeUndefined();
    expect(parseLedgerRoute('tx/x')).toBeUndefined();
    expect(parseLedgerRoute('objects/%E0%A4%A')).toBeUndefined();
    expect(parseLedgerRoute('status/extra')).toBeUndefined();
  });
});

describe('answering look-ups', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await fx.cleanup();
  });

  it('answers with plain JSON and throws NOT_FOUND errors for missing items', async () => {
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const tx = (await runLedgerQuery(fx.ledger, { kind: 'transaction', digest: reg.txDigest })) as Record<string, unknown>;
    expect(tx).toMatchObject({ digest: reg.txDigest, kind: 'RegisterBlob' });
    expect(await runLedgerQuery(fx.ledger, { kind: 'blob', blobId: BLOB_A })).toMatchObject({ blobId: BLOB_A, objects: [{ object: { id: reg.blobObject.id } }] });
    expect(await runLedgerQuery(fx.ledger, { kind: 'status' })).toMatchObject({ balance: String(10n ** 15n - 132_300n) });
    for (const [query, code] of [
      [{ kind: 'transaction', digest: 'nope' }, 'NoSuchTransaction'],
      [{ kind: 'event', digest: reg.txDigest, eventSeq: '5' }, 'NoSuchEvent'],
      [{ kind: 'object', id: `0x${'00'.repeat(32)}` }, 'NoSuchObject'],
      [{ kind: 'blob', blobId: BLOB_B }, 'NoSuchObject'],
    ] as const) {
      const error = await runLedgerQuery(fx.ledger, query).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).code).toBe(code);
      expect((error as LedgerError).info.httpStatus).toBe(404);
    }
  });

  it('tusk ledger: prints JSON from a ledger another handle holds open, exit codes 0/1/2', async () => {
    // the CLI reads the real clock
    await fx.cleanup();
    fx = await makeFixture({ genesisMs: Date.now(), now: Date.now });
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    await fx.ledger.certifyBlob(reg.blobObject.id, QUORUM_1000);
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);

    expect(await runLedgerCli(['object', reg.blobObject.id], fx.dir)).toBe(0);
    expect(JSON.parse(out.pop()!)).toMatchObject({ type: 'Blob', state: 'certified', object: { blobId: BLOB_A } });
    expect(await runLedgerCli(['event', reg.txDigest, '0'], fx.dir)).toBe(0);
    expect(JSON.parse(out.pop()!)).toMatchObject({ type: 'BlobRegistered', id: { txDigest: reg.txDigest, eventSeq: '0' } });
    expect(await runLedgerCli(['verify'], fx.dir)).toBe(0);
    expect(JSON.parse(out.pop()!)).toEqual({ ok: true, transactions: 3, headDigest: expect.any(String) });
    expect(await runLedgerCli(['status'], fx.dir)).toBe(0);
    expect(JSON.parse(out.pop()!)).toMatchObject({ epoch: 1, storagePricePerUnit: '100', writePricePerUnit: '2000' });
    expect(await runLedgerCli(['tx', 'unknown'], fx.dir)).toBe(1);
    expect(await runLedgerCli(['bogus'], fx.dir)).toBe(2);
    expect(await runLedgerCli(['status'], `${fx.dir}/missing`)).toBe(1);
  });
});
