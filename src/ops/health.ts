// Liveness and readiness (issue 13 §1): live while the process serves HTTP; ready once recovery,
// the native self-test and the index are up, and neither draining nor short of disk space; degraded
// (still ready: the intact objects are served) while stored objects have lost bytes.

import { diskSpace, type DiskSpace } from '../base/disk-space.js';

export type StartStage = 'starting' | 'self-test' | 'recovery' | 'up';

export type { DiskSpace } from '../base/disk-space.js';

export interface Readiness {
  ready: boolean;
  stage: StartStage;
  draining: boolean;
  disk?: DiskSpace & { reserveBytes: number };
  /** why not ready; empty when ready */
  reasons: string[];
  /** what is wrong though the server is ready (storage damage); empty when healthy */
  degraded: string[];
}

/** Versions and parts whose bytes are missing (the engine's StoreStats.damage). */
export interface DamageCount {
  objects: number;
  missingBytes: number;
}

/** Disk space is looked up at most this often: a probe storm must not become a statfs storm. */
const DISK_CACHE_MS = 1000;

export class Health {
  stage: StartStage = 'starting';
  draining = false;
  readonly startedAt = Date.now();
  private disk: { at: number; value: Promise<DiskSpace> } | undefined;
  /** set once the engine is open */
  damage: (() => DamageCount | undefined) | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly reserveBytes: number,
  ) {}

  async readiness(): Promise<Readiness> {
    const reasons: string[] = [];
    if (this.stage !== 'up') reasons.push(`starting: ${this.stage}`);
    if (this.draining) reasons.push('draining');
    let disk: Readiness['disk'];
    try {
      disk = { ...(await this.diskSpace()), reserveBytes: this.reserveBytes };
      if (disk.freeBytes <= this.reserveBytes) reasons.push(`disk reserve reached: ${disk.freeBytes} bytes free, reserve ${this.reserveBytes}`);
    } catch (e) {
      reasons.push(`disk space unknown: ${(e as Error).message}`);
    }
    const degraded: string[] = [];
    const damage = this.damage?.();
    if (damage && damage.objects > 0) {
      degraded.push(
        `${damage.objects} objects (versions or parts) with missing bytes (${damage.missingBytes} bytes lost): their reads fail; the start-up log and tusk scrub name them`,
      );
    }
    return { ready: reasons.length === 0, stage: this.stage, draining: this.draining, disk, reasons, degraded };
  }

  diskSpace(): Promise<DiskSpace> {
    const now = Date.now();
    if (!this.disk || now - this.disk.at > DISK_CACHE_MS) this.disk = { at: now, value: diskSpace(this.dataDir) };
    return this.disk.value;
  }
}
