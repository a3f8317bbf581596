// Reclaims blobs past their end epoch (or deleted) from the storage nodes, then records it on the
// ledger (architecture.md "Ledger": "blobs past endEpoch are reclaimed"). Slivers are shared by
// every Blob object with the same blob id, so they stay while another object still needs them.

import type { BlobObject } from '../ledger/index.js';
import type { PublisherContext } from './context.js';
import type { EmbeddedBackend } from './embedded-backend.js';

export interface ReclaimReport {
  /** Blob objects marked reclaimed on the ledger */
  reclaimed: string[];
  /** blob ids whose slivers were deleted from the nodes */
  deletedBlobIds: string[];
  /** blob ids kept on the nodes because a live object still uses them */
  keptBlobIds: string[];
  /** blob ids left for the next round because some node could not be reached */
  retryBlobIds: string[];
}

const LIVE_STATES = new Set(['registered', 'certified']);

/** One pass over the ledger's due blobs. */
export async function reclaimExpired(ctx: PublisherContext, { ledger, network }: EmbeddedBackend): Promise<ReclaimReport> {
  const report: ReclaimReport = { reclaimed: [], deletedBlobIds: [], keptBlobIds: [], retryBlobIds: [] };
  const byBlobId = new Map<string, BlobObject[]>();
  for (const blob of ledger.expiredBlobs()) {
    const list = byBlobId.get(blob.blobId) ?? [];
    list.push(blob);
    byBlobId.set(blob.blobId, list);
  }
  for (const [blobId, objects] of byBlobId) {
    await ctx.blobLocks.run(blobId, async () => {
      const due = new Set(objects.map((o) => o.id));
      const stillNeeded = ledger.blobsById(blobId).some((view) => !due.has(view.object.id) && LIVE_STATES.has(view.state));
      if (stillNeeded) {
        report.keptBlobIds.push(blobId);
      } else {
        const { removed, failures } = await network.deleteBlob(Buffer.from(blobId, 'base64url'));
        if (failures.length > 0) {
          ctx.log(`publisher: reclaim ${blobId}: ${failures.map((f) => `${f.nodeId}: ${f.error.message}`).join('; ')}; will retry`, 'warn');
          report.retryBlobIds.push(blobId);
          return;
        }
        ctx.log(`publisher: reclaimed ${blobId}: ${removed} stored items removed`);
        report.deletedBlobIds.push(blobId);
      }
      await ledger.markReclaimed([...due]);
      report.reclaimed.push(...due);
    });
  }
  return report;
}

export interface Reclaimer {
  /** Runs one pass now (waiting for a pass already running). */
  runNow(): Promise<ReclaimReport>;
  stop(): Promise<void>;
}

/** Runs `reclaimExpired` every `intervalMs`, never two passes at once; errors are logged, not fatal. */
export function startReclaimer(ctx: PublisherContext, embedded: EmbeddedBackend, intervalMs: number): Reclaimer {
  let running: Promise<ReclaimReport> | undefined;
  let stopped = false;
  const pass = (): Promise<ReclaimReport> => {
    running ??= reclaimExpired(ctx, embedded).finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) pass().catch((e) => ctx.log(`publisher: reclaim failed: ${(e as Error).stack ?? e}`, 'error'));
  }, intervalMs);
  timer.unref();
  return {
    async runNow() {
      if (running) await running.catch(() => undefined);
      return pass();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
