// A ledger in a fresh temp directory with a hand-driven clock.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLedger, type Ledger, type LedgerOptions } from '../../../../src/publisher/ledger/index.js';

export const GENESIS_MS = 1_700_000_000_000;
export const EPOCH_MS = 60_000;
export const PUBLISHER = `0x${'ab'.repeat(32)}`;
export const BLOB_A = 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk';
export const BLOB_B = 'RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY';
/** 17 bytes at n = 1000 (walrus.md §9.1) */
export const SMALL = { size: 17, encodedLength: 66_034_000 };
export const QUORUM_1000 = { signers: ['node-0', 'node-1', 'node-2'], shardsCovered: 667, nShards: 1000 };

export interface Fixture {
  dir: string;
  clock: { ms: number };
  ledger: Ledger;
  open(extra?: Partial<LedgerOptions>): Promise<Ledger>;
  /** moves the clock to the start of `epoch` */
  toEpoch(epoch: number): void;
  cleanup(): Promise<void>;
}

export async function makeFixture(extra: Partial<LedgerOptions> = {}): Promise<Fixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-ledger-'));
  const clock = { ms: GENESIS_MS };
  const open = (more: Partial<LedgerOptions> = {}) =>
    openLedger({
      path: dir,
      epochLengthMs: EPOCH_MS,
      genesisMs: GENESIS_MS,
      publisherAddress: PUBLISHER,
      now: () => clock.ms,
      ...extra,
      ...more,
    });
  const fixture: Fixture = {
    dir,
    clock,
    ledger: await open(),
    open,
    toEpoch: (epoch) => {
      clock.ms = GENESIS_MS + (epoch - 1) * EPOCH_MS;
    },
    cleanup: async () => {
      await fixture.ledger.close().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}
