// Delivery of server access logs (writer thread): every ready journal file (journal.ts) becomes
// log objects in the target buckets, one per target and prefix (SimplePrefix: the key names no
// source, so sources logging to one prefix share an object), or per target, prefix, source bucket
// and event day (PartitionedPrefix), and the file is deleted once they are committed. A crash between
// the two delivers the file again (at least once). At start, the files an earlier run left, open
// or ready, are delivered first. A target that is gone, or whose policy and ACL no longer let log
// delivery write, loses those records, as S3 drops them (logged).

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { LogLine } from '../../log/log-line.js';
import type { S3ObjectAttrs, S3Store } from '../object-attrs.js';
import { logDeliveryAllowed } from './config.js';
import { JOURNAL_DIR, OPEN_SUFFIX, READY_SUFFIX, type JournalEntry } from './journal.js';
import { logObjectKey } from './record.js';

const LOG_OBJECT_TYPE = 'text/plain';
const DAY_MS = 86_400_000;

export interface LogDeliveryOptions {
  dataDir: string;
  region: string;
  /** an account's 12-digit id from its canonical id */
  accountIdOf: (canonicalId: string) => string | undefined;
  log: LogLine;
}

export class LogDelivery {
  private running: Promise<void> | undefined;
  private again = false;
  private readonly dir: string;

  constructor(
    private readonly store: S3Store,
    private readonly options: LogDeliveryOptions,
  ) {
    this.dir = join(options.dataDir, JOURNAL_DIR);
  }

  /** At start, before any journal of this run is opened: what an earlier run left open is ready now. */
  adoptEarlierRuns(): void {
    for (const name of this.files(OPEN_SUFFIX)) {
      renameSync(join(this.dir, name), join(this.dir, name.slice(0, -OPEN_SUFFIX.length) + READY_SUFFIX));
    }
  }

  /** Delivers every ready file; one pass at a time (a call during a pass runs another after it). */
  deliver(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        for (const name of this.files(READY_SUFFIX).sort()) await this.deliverFile(name);
      } while (this.again);
    })()
      .catch((e: Error) => this.options.log(`server access log: delivery failed (retried at the next pass): ${e.message}`, 'warn'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private files(suffix: string): string[] {
    try {
      return readdirSync(this.dir).filter((n) => n.endsWith(suffix));
    } catch {
      return [];
    }
  }

  private async deliverFile(name: string): Promise<void> {
    const path = join(this.dir, name);
    const groups = new Map<string, JournalEntry[]>();
    for (const text of readFileSync(path, 'utf8').split('\n')) {
      if (!text) continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(text) as JournalEntry;
      } catch {
        // a line cut short by a full disk: the rest of the file still counts
        continue;
      }
      const day = entry.d === 'EventTime' ? Math.floor(entry.e / DAY_MS) : 0;
      const id = JSON.stringify(entry.d ? [entry.t, entry.p, entry.d, entry.s, day] : [entry.t, entry.p]);
      let group = groups.get(id);
      if (!group) groups.set(id, (group = []));
      group.push(entry);
    }
    for (const entries of groups.values()) await this.put(entries);
    unlinkSync(path);
  }

  private async put(group: JournalEntry[]): Promise<void> {
    const target = this.store.getBucket(group[0]!.t);
    // each source's records go where the target still lets log delivery write them
    const allowed = new Map<string, boolean>();
    const may = (e: JournalEntry): boolean => {
      let ok = allowed.get(e.s);
      if (ok === undefined) {
        ok = target !== undefined && logDeliveryAllowed(target, e.p, { bucket: e.s, accountIds: [this.options.accountIdOf(e.o) ?? e.o, e.o] });
        allowed.set(e.s, ok);
        if (!ok) this.options.log(`server access log: records of ${e.s} dropped: target bucket ${e.t} ${target ? 'no longer allows log delivery' : 'is gone'}`, 'warn');
      }
      return ok;
    };
    const entries = group.filter(may);
    if (!target || entries.length === 0) return;
    const first = entries[0]!;
    const accountId = this.options.accountIdOf(first.o) ?? first.o;
    const now = Date.now();
    const key = logObjectKey({
      prefix: first.p,
      deliveredAt: now,
      ...(first.d ? { partitioned: { accountId, region: this.options.region, sourceBucket: first.s, partitionTime: first.d === 'EventTime' ? first.e : now } } : {}),
    });
    const body = Buffer.from(entries.map((e) => `${e.l}\n`).join(''));
    const attrs: S3ObjectAttrs = { contentType: LOG_OBJECT_TYPE, storageClass: 'STANDARD', acl: 'private', headers: {}, meta: {} };
    const writer = this.store.beginWrite(body.length);
    let committed = false;
    try {
      await writer.write(body);
      await writer.commit(target.name, key, { etag: createHash('md5').update(body).digest('hex'), lastModified: now, attrs });
      committed = true;
    } finally {
      if (!committed) await writer.abort();
    }
  }

  /** Waits for a pass under way. */
  async close(): Promise<void> {
    await this.running;
  }
}
