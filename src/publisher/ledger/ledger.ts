// The embedded ledger the publisher pays and certifies on: opening (genesis or reconfiguration),
// the blob transactions, and the look-ups behind `GET /v1/ledger/...` and `tusk ledger ...`.

import fs from 'node:fs';
import {
  planCertifyBlob,
  planExtendBlob,
  planShareBlob,
  planTransferBlob,
  type ShareBlobResult,
  type TransferBlobResult,
  planDeleteBlob,
  planReclaim,
  planRegisterBlob,
  type BlobCertificate,
  type CertifyBlobResult,
  type DeleteBlobResult,
  type ExtendBlobResult,
  type ReclaimResult,
  type RegisterBlobInput,
  type RegisterBlobResult,
} from './blob-plans.js';
import { planSetBlobAttributes, type SetBlobAttributesResult } from './attribute-plans.js';
import { DEFAULT_STORAGE_PRICE_PER_UNIT, DEFAULT_WRITE_PRICE_PER_UNIT, FROST_PER_WAL, registrationCost, type Prices } from './costs.js';
import { assertEpochLength, epochAt, epochStartMs, genesisClock } from './epoch-clock.js';
import { LedgerError } from './errors.js';
import { assertBlobId, isObjectId, normalizeAddress, randomAddress, txDigestOf } from './ids.js';
import { LEDGER_FORMAT_VERSION, openLedgerDb, type LedgerDb, type LedgerState } from './ledger-db.js';
import { parameterChanges, planConfigure, planFund, planGenesis, type LedgerParameters } from './setup-plans.js';
import { appendTransaction, FORMAT_KEY, readHead, readState, type Plan, type PlanContext } from './transaction-log.js';
import type { BlobObject, BlobObjectView, ChainReport, EventId, LedgerEvent, LedgerObjectView, LedgerStatus, TransactionRecord } from './types.js';
import { verifyChain } from './verify-chain.js';
import { blobObjectOf, blobViewOf, eventsOf, readBlob, sharedBlobViewOf, storageViewOf, transactionRecordOf } from './views.js';

/** Mainnet and Testnet value (walrus.md §9.3). */
export const DEFAULT_MAX_EPOCHS_AHEAD = 53;
/** The contract's cap on max_epochs_ahead (`MAX_MAX_EPOCHS_AHEAD`, walrus.md §9.3). */
export const MAX_MAX_EPOCHS_AHEAD = 1000;
/** Generous but finite: 1,000,000 WAL. */
export const DEFAULT_INITIAL_BALANCE = 1_000_000n * FROST_PER_WAL;

export interface LedgerOptions {
  /** directory of the ledger's own LMDB environment */
  path: string;
  epochLengthMs: number;
  /** start of epoch 1; persisted on first open, ignored afterwards (default: now) */
  genesisMs?: number;
  storagePricePerUnit?: bigint;
  writePricePerUnit?: bigint;
  /** the wallet's balance at genesis; ignored afterwards (use `fund`) */
  initialBalance?: bigint;
  /** the publisher's wallet address; random on first open when absent, kept afterwards */
  publisherAddress?: string;
  maxEpochsAhead?: number;
  /** wall clock in ms, injectable for tests */
  now?: () => number;
}

/** The certifying event of a permanent certified blob (walrus.md §10.3, event variant). */
export interface CertifiedPermanentMatch {
  blobObjectId: string;
  event: EventId;
  endEpoch: number;
}

/**
 * Opens (creating on first use) the ledger at `options.path`. Parameters that differ from the
 * stored ones are changed by one `Configure` transaction; the chain head is checked on open.
 */
export async function openLedger(options: LedgerOptions): Promise<Ledger> {
  const now = options.now ?? Date.now;
  assertEpochLength(options.epochLengthMs);
  const maxEpochsAhead = options.maxEpochsAhead ?? DEFAULT_MAX_EPOCHS_AHEAD;
  if (!Number.isInteger(maxEpochsAhead) || maxEpochsAhead < 1 || maxEpochsAhead > MAX_MAX_EPOCHS_AHEAD) {
    throw new RangeError(`maxEpochsAhead must be an integer in 1..${MAX_MAX_EPOCHS_AHEAD}, got ${maxEpochsAhead}`);
  }
  const storagePricePerUnit = nonNegative('storagePricePerUnit', options.storagePricePerUnit ?? DEFAULT_STORAGE_PRICE_PER_UNIT);
  const writePricePerUnit = nonNegative('writePricePerUnit', options.writePricePerUnit ?? DEFAULT_WRITE_PRICE_PER_UNIT);
  const initialBalance = nonNegative('initialBalance', options.initialBalance ?? DEFAULT_INITIAL_BALANCE);
  const address = options.publisherAddress === undefined ? undefined : normalizeAddress(options.publisherAddress);

  fs.mkdirSync(options.path, { recursive: true });
  const db = openLedgerDb(options.path);
  try {
    checkFormat(db);
    const stored = readState(db);
    if (stored === undefined) {
      const genesisMs = options.genesisMs ?? now();
      const initial: LedgerState = {
        publisherAddress: address ?? randomAddress(),
        balance: '0',
        storagePricePerUnit: String(storagePricePerUnit),
        writePricePerUnit: String(writePricePerUnit),
        maxEpochsAhead,
        genesisMs,
        clock: genesisClock(genesisMs, options.epochLengthMs),
      };
      await appendTransaction(db, now, (ctx) => planGenesis(initialBalance, ctx), initial);
    } else {
      checkHead(db);
      const wanted: LedgerParameters = {
        epochLengthMs: options.epochLengthMs,
        storagePricePerUnit,
        writePricePerUnit,
        maxEpochsAhead,
        publisherAddress: address ?? stored.publisherAddress,
      };
      const changes = parameterChanges(stored, wanted);
      if (changes !== undefined) await appendTransaction(db, now, (ctx) => planConfigure(changes, ctx));
    }
  } catch (e) {
    await db.env.close();
    throw e;
  }
  return new Ledger(db, now);
}

/** Opens an existing ledger read-only with its stored parameters (for `tusk ledger ...`). */
export async function openExistingLedger(path: string, now: () => number = Date.now): Promise<Ledger> {
  if (!fs.existsSync(path)) throw new LedgerError('LedgerNotFound', { path });
  const db = openLedgerDb(path, true);
  if (readState(db) === undefined) {
    await db.env.close();
    throw new LedgerError('LedgerNotFound', { path });
  }
  return new Ledger(db, now);
}

export class Ledger {
  constructor(
    private readonly db: LedgerDb,
    private readonly now: () => number,
  ) {}

  currentEpoch(): number {
    return Math.max(epochAt(this.state().clock, this.now()), readHead(this.db).epoch);
  }

  get epochLengthMs(): number {
    return this.state().clock.epochLengthMs;
  }

  get maxEpochsAhead(): number {
    return this.state().maxEpochsAhead;
  }

  get publisherAddress(): string {
    return this.state().publisherAddress;
  }

  prices(): Prices {
    const state = this.state();
    return { storagePricePerUnit: BigInt(state.storagePricePerUnit), writePricePerUnit: BigInt(state.writePricePerUnit) };
  }

  balance(): bigint {
    return BigInt(this.state().balance);
  }

  /** `cost` of a registerFromScratch at the current prices (walrus.md §9.2). */
  costOf(encodedLength: number, epochs: number): bigint {
    return registrationCost(encodedLength, epochs, this.prices());
  }

  /** Reserves storage [current, current + epochs), creates the Blob object and pays `cost`: one transaction. */
  registerBlob(input: RegisterBlobInput): Promise<RegisterBlobResult> {
    return this.append((ctx) => planRegisterBlob(input, ctx));
  }

  certifyBlob(blobObjectId: string, certificate: BlobCertificate): Promise<CertifyBlobResult> {
    return this.append((ctx) => planCertifyBlob(blobObjectId, certificate, ctx));
  }

  /** Extends a certified Blob object the publisher owns by `epochsExtended` epochs, paying their storage fee. */
  extendBlob(blobObjectId: string, epochsExtended: number): Promise<ExtendBlobResult> {
    return this.append((ctx) => planExtendBlob(blobObjectId, epochsExtended, ctx));
  }

  /** Sends a Blob object the publisher owns to another address. */
  transferBlob(blobObjectId: string, to: string): Promise<TransferBlobResult> {
    return this.append((ctx) => planTransferBlob(blobObjectId, to, ctx));
  }

  /** Inserts or updates attributes (Walrus's blob `metadata` pairs) on a live Blob object the publisher owns. */
  setBlobAttributes(blobObjectId: string, pairs: Record<string, string>): Promise<SetBlobAttributesResult> {
    return this.append((ctx) => planSetBlobAttributes(blobObjectId, pairs, ctx));
  }

  /** Wraps a certified Blob object into a new SharedBlob object (`share=true`). */
  shareBlob(blobObjectId: string): Promise<ShareBlobResult> {
    return this.append((ctx) => planShareBlob(blobObjectId, ctx));
  }

  /** Deletes a deletable blob; its slivers become due for reclaiming at once. */
  deleteBlob(blobObjectId: string): Promise<DeleteBlobResult> {
    return this.append((ctx) => planDeleteBlob(blobObjectId, ctx));
  }

  /** Records that the slivers of these expired or deleted blobs were removed from the nodes. */
  markReclaimed(blobObjectIds: string[]): Promise<ReclaimResult> {
    return this.append((ctx) => planReclaim(blobObjectIds, ctx));
  }

  fund(amount: bigint): Promise<string> {
    return this.append((ctx) => planFund(amount, ctx));
  }

  /** Blobs whose slivers may go: endEpoch ≤ `epoch`, or deleted; not yet reclaimed. */
  expiredBlobs(epoch: number = this.currentEpoch(), limit = 1000): BlobObject[] {
    const out: BlobObject[] = [];
    for (const { key } of this.db.reclaimIndex.getRange({ start: [0], end: [epoch + 1], limit })) {
      const found = readBlob(this.db, key[1]);
      if (found !== undefined) out.push(blobObjectOf(found.blob, found.storage));
    }
    return out;
  }

  /**
   * walrus.md §10.3 event variant: the certified, permanent, live blob with this blob id whose
   * endEpoch ≥ `minEndEpoch`, the longest-lived one if several; `event` is its certifying event.
   */
  findCertifiedPermanent(blobId: string, minEndEpoch: number): CertifiedPermanentMatch | undefined {
    assertBlobId(blobId);
    // Still valid means endEpoch > current epoch (storage covers [start, end)).
    const needed = Math.max(minEndEpoch, this.currentEpoch() + 1);
    const [top] = [...this.db.certifiedIndex.getRange({ start: [blobId, Number.MAX_SAFE_INTEGER], end: [blobId, needed - 1], reverse: true, limit: 1 })];
    if (top === undefined || top.key[1] < needed) return undefined;
    const found = readBlob(this.db, top.key[2]);
    if (found?.blob.certifiedBy == null) throw new LedgerError('LedgerCorrupt', { objectId: top.key[2] }, 'the certified-blob index names an uncertified blob');
    return { blobObjectId: found.blob.id, event: found.blob.certifiedBy, endEpoch: found.storage.endEpoch };
  }

  getTransaction(txDigest: string): TransactionRecord | undefined {
    const seq = this.db.digests.get(txDigest);
    const tx = seq === undefined ? undefined : this.db.transactions.get(seq);
    return tx === undefined ? undefined : transactionRecordOf(tx);
  }

  getEvent(txDigest: string, eventSeq: string | number): LedgerEvent | undefined {
    const index = Number(eventSeq);
    if (!Number.isSafeInteger(index) || index < 0 || String(index) !== String(eventSeq)) return undefined;
    const seq = this.db.digests.get(txDigest);
    const tx = seq === undefined ? undefined : this.db.transactions.get(seq);
    return tx === undefined ? undefined : eventsOf(tx)[index];
  }

  getObject(id: string): LedgerObjectView | undefined {
    if (!isObjectId(id)) return undefined;
    const stored = this.db.objects.get(id.toLowerCase());
    if (stored === undefined) return undefined;
    if (stored.type === 'Storage') return storageViewOf(stored);
    if (stored.type === 'SharedBlob') return sharedBlobViewOf(stored);
    const found = readBlob(this.db, stored.id);
    return found && blobViewOf(found.blob, found.storage, this.currentEpoch());
  }

  /** Every Blob object ever registered for this blob id, in object-id order. */
  blobsById(blobId: string): BlobObjectView[] {
    assertBlobId(blobId);
    const epoch = this.currentEpoch();
    const out: BlobObjectView[] = [];
    for (const { key } of this.db.blobIndex.getRange({ start: [blobId], end: [blobId, '\uffff'] })) {
      const found = readBlob(this.db, key[1]);
      if (found !== undefined) out.push(blobViewOf(found.blob, found.storage, epoch));
    }
    return out;
  }

  /** The wallet's Blob objects: those the publisher owns, certified and not yet expired, in blob-id order. */
  ownedLiveBlobs(): BlobObjectView[] {
    const epoch = this.currentEpoch();
    const owner = this.state().publisherAddress;
    const out: BlobObjectView[] = [];
    for (const { key } of this.db.blobIndex.getRange({})) {
      const found = readBlob(this.db, key[1]);
      if (found === undefined) continue;
      const view = blobViewOf(found.blob, found.storage, epoch);
      if (view.state === 'certified' && view.object.owner === owner) out.push(view);
    }
    return out;
  }

  /** Blob objects the ledger has ever created (metrics: blobs stored). */
  blobObjectCount(): number {
    return this.db.blobIndex.getKeysCount();
  }

  status(): LedgerStatus {
    const state = this.state();
    const head = readHead(this.db);
    const epoch = this.currentEpoch();
    return {
      epoch,
      epochLengthMs: state.clock.epochLengthMs,
      epochStartMs: epochStartMs(state.clock, epoch),
      nextEpochMs: epochStartMs(state.clock, epoch + 1),
      maxEpochsAhead: state.maxEpochsAhead,
      genesisMs: state.genesisMs,
      publisherAddress: state.publisherAddress,
      balance: state.balance,
      storagePricePerUnit: state.storagePricePerUnit,
      writePricePerUnit: state.writePricePerUnit,
      transactions: head.seq + 1,
      headDigest: head.digest,
    };
  }

  verifyChain(): Promise<ChainReport> {
    return verifyChain(this.db);
  }

  close(): Promise<void> {
    return this.db.env.close();
  }

  private append<R>(makePlan: (ctx: PlanContext) => Plan<R>): Promise<R> {
    return appendTransaction(this.db, this.now, makePlan);
  }

  private state(): LedgerState {
    const state = readState(this.db);
    if (state === undefined) throw new LedgerError('LedgerCorrupt', {}, 'the ledger has no state record');
    return state;
  }
}

function checkFormat(db: LedgerDb): void {
  const version = db.meta.get(FORMAT_KEY);
  if (version !== undefined && version !== LEDGER_FORMAT_VERSION) {
    throw new LedgerError('LedgerCorrupt', { version }, `ledger format ${String(version)} is not supported (expected ${LEDGER_FORMAT_VERSION})`);
  }
}

/** A cheap start-up check that the last transaction is the one the head names; verifyChain checks the rest. */
function checkHead(db: LedgerDb): void {
  const head = readHead(db);
  const last = db.transactions.get(head.seq);
  if (last === undefined || last.digest !== head.digest || txDigestOf(last.body) !== head.digest || last.effectsDigest !== head.effectsDigest) {
    throw new LedgerError('LedgerCorrupt', { seq: head.seq }, 'the last ledger transaction does not match the chain head');
  }
}

function nonNegative(name: string, value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n) throw new RangeError(`${name} must be a non-negative bigint of FROST`);
  return value;
}
