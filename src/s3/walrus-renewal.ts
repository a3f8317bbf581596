// The renewal worker of storage class WALRUS (issue #34 item 3): Walrus storage is bought per epoch,
// an S3 object stays until deleted. Every interval, one pass gathers the distinct blob ids that some
// object version in the index still names (a quilt shared by many objects counts once, and stays
// while any of them does) and extends those ending within `aheadEpochs` epochs back to the longest
// storage the network sells, within the operator's per-pass budget. A blob no version names any
// more (its objects deleted, or removed by lifecycle) is not extended: it lapses at its end epoch.

import { periodicPass } from '../base/periodic-pass.js';
import type { WalrusBlobs, WalrusRenewalView } from '../base/walrus-blobs.js';
import type { LogLine } from '../log/log-line.js';
import type { S3Store } from './object-attrs.js';
import { eachVersionPage } from './version-pages.js';

const PAGE = 1000;

export interface WalrusRenewalOptions {
  intervalMs: number;
  /** a blob ending within this many epochs is extended */
  aheadEpochs: number;
  /** the most one pass may spend (FROST); undefined: no limit */
  maxFrostPerPass?: bigint;
}

export interface WalrusRenewalStats {
  passes: number;
  /** blobs extended */
  extended: number;
  /** epochs bought by those extensions */
  epochsBought: number;
  /** FROST paid for them */
  frostSpent: bigint;
  /** extensions left out because the pass's budget would be exceeded */
  skippedBudget: number;
  /** extensions that failed (tried again at the next pass) */
  failed: number;
}

export interface WalrusRenewalWorker {
  readonly stats: WalrusRenewalStats;
  /** Runs one pass now (and the timer's). */
  runOnce(): Promise<void>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

export function startWalrusRenewal(store: S3Store, options: WalrusRenewalOptions, log: LogLine, walrus: () => WalrusBlobs | undefined): WalrusRenewalWorker {
  const stats: WalrusRenewalStats = { passes: 0, extended: 0, epochsBought: 0, frostSpent: 0n, skippedBudget: 0, failed: 0 };
  const pass = async (): Promise<void> => {
    const network = walrus();
    if (!network?.renewalView) return;
    const stopped = () => periodic.stopped;
    try {
      const blobIds = await referencedBlobs(store, stopped);
      // the network's epochs and the wallet's Blob objects, read once for the whole pass
      await renew(await network.renewalView(), blobIds, options, stats, log, stopped);
      stats.passes++;
    } catch (e) {
      log(`walrus renewal pass failed: ${(e as Error).stack ?? e}`, 'error');
    }
  };
  const periodic = periodicPass(pass, options.intervalMs);
  return { stats, runOnce: () => periodic.runOnce(), stop: periodic.stop };
}

/** The distinct blob ids the versions of every bucket name, delete markers and local objects aside; a page at a time, letting requests run between pages. */
export async function referencedBlobs(store: S3Store, stopped: () => boolean): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const bucket of store.listBuckets()) {
    await eachVersionPage(
      store,
      bucket.name,
      PAGE,
      (items) => {
        for (const item of items) {
          if (item.kind !== 'version') continue;
          for (const b of item.version.attrs.walrus?.blobs ?? []) ids.add(b.blobId);
        }
      },
      stopped,
    );
  }
  return ids;
}

async function renew(view: WalrusRenewalView, blobIds: Set<string>, options: WalrusRenewalOptions, stats: WalrusRenewalStats, log: LogLine, stopped: () => boolean): Promise<void> {
  let spent = 0n;
  const { current, maxAhead } = view;
  for (const blobId of blobIds) {
    if (stopped()) return;
    const term = view.term(blobId);
    // none the wallet owns live: lapsed already (the object reads as damaged), nothing to extend
    if (!term || term.endEpoch - current > options.aheadEpochs) continue;
    // back to the longest storage sold: a blob's end may be at most maxAhead epochs past the current
    const epochs = current + maxAhead - term.endEpoch;
    if (epochs < 1) continue;
    const cost = term.costPerEpoch * BigInt(epochs);
    if (options.maxFrostPerPass !== undefined && spent + cost > options.maxFrostPerPass) {
      stats.skippedBudget++;
      log(`walrus renewal: blob ${blobId} ends at epoch ${term.endEpoch} (now ${current}); extending it by ${epochs} epochs would cost ${cost} FROST, beyond this pass's budget (${options.maxFrostPerPass - spent} of --walrus-renew-max-wal ${options.maxFrostPerPass} left): skipped`, 'warn');
      continue;
    }
    try {
      const out = await view.extend(blobId, epochs);
      spent += out.cost;
      stats.extended++;
      stats.epochsBought += epochs;
      stats.frostSpent += out.cost;
      log(`walrus renewal: blob ${blobId} extended by ${epochs} epochs to end epoch ${out.endEpoch} for ${out.cost} FROST`, 'info');
    } catch (e) {
      stats.failed++;
      log(`walrus renewal: extending blob ${blobId} failed: ${(e as Error).message}`, 'warn');
    }
  }
}
