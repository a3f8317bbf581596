// Small S3 objects of storage class WALRUS gathered into quilts (issue #34 item 2, README "S3
// objects on Walrus"): a blob each would pay a blob's fixed costs each (metadata, registration,
// certificate), so patches arriving within a short window share one quilt and one certification.
// Rule: a batch is stored when its window ends, when it holds as many patches as a quilt has
// columns for, or when it would exceed its byte budget or repeat an identifier; every patch's
// promise settles exactly once, with its quilt's outcome. A window that ends while a quilt is being
// stored waits for it, and then for a window more (group commit): the writers of that quilt send
// their next objects as soon as it is certified, and they join the late ones of the last round
// instead of each group making a small quilt of its own (1 000 PUTs from 64 boto3 threads made
// 22 to 36 quilts, a quilt per window's stragglers, before this rule).

import type { WalrusPatchRef } from '../../base/walrus-blobs.js';
import { QuiltFormatError, type QuiltFile } from '../quilt/quilt-format.js';

/** How long the first patch of a batch waits for others: the longest a lone small PUT waits. */
export const QUILT_WINDOW_MS = 100;
/** Objects of at most this many bytes become patches (a larger one is a blob of its own). */
export const PATCH_MAX_SIZE = 1024 * 1024;
/** The most bytes of patches one quilt gathers. */
export const QUILT_MAX_BYTES = 16 * 1024 * 1024;

/** Stores files as one quilt, certified; answers each identifier's patch id. */
export type StoreQuiltFiles = (files: QuiltFile[]) => Promise<{ quiltId: string; patchIds: Map<string, string> }>;

interface Waiting {
  file: QuiltFile;
  resolve(ref: WalrusPatchRef): void;
  reject(e: unknown): void;
}

export class QuiltBatcher {
  private batch: Waiting[] = [];
  private bytes = 0;
  private readonly identifiers = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** quilts being stored */
  private storing = 0;
  /** the gathering batch's window ended while a quilt was being stored */
  private due = false;

  constructor(
    private readonly storeFiles: StoreQuiltFiles,
    /** a quilt's columns less the one its index takes at least */
    private readonly maxPatches: number,
    private readonly windowMs = QUILT_WINDOW_MS,
    private readonly maxBytes = QUILT_MAX_BYTES,
  ) {}

  add(file: QuiltFile): Promise<WalrusPatchRef> {
    if (this.identifiers.has(file.identifier) || this.bytes + file.contents.length > this.maxBytes) this.flush();
    return new Promise((resolve, reject) => {
      this.batch.push({ file, resolve, reject });
      this.identifiers.add(file.identifier);
      this.bytes += file.contents.length;
      if (this.batch.length >= this.maxPatches) this.flush();
      else if (!this.due) this.timer ??= setTimeout(() => this.windowEnded(), this.windowMs);
    });
  }

  private windowEnded(): void {
    this.timer = undefined;
    if (this.storing > 0) this.due = true;
    else this.flush();
  }

  /** The last quilt being stored settled: a batch whose window ended meanwhile gets a window more. */
  private stored(): void {
    if (--this.storing > 0 || !this.due) return;
    this.due = false;
    if (this.batch.length > 0) this.timer ??= setTimeout(() => this.windowEnded(), this.windowMs);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    const batch = this.batch;
    this.batch = [];
    this.bytes = 0;
    this.identifiers.clear();
    if (batch.length === 0) return;
    this.storing++;
    void this.store(batch).finally(() => this.stored());
  }

  private async store(batch: Waiting[]): Promise<void> {
    try {
      const { quiltId, patchIds } = await this.storeFiles(batch.map((w) => w.file));
      for (const w of batch) w.resolve({ quiltId, patchId: patchIds.get(w.file.identifier)! });
    } catch (e) {
      // patches whose index or columns do not fit one quilt: halves, until each fits
      if (e instanceof QuiltFormatError && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await Promise.all([this.store(batch.slice(0, half)), this.store(batch.slice(half))]);
        return;
      }
      for (const w of batch) w.reject(e);
    }
  }
}
