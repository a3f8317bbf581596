// Orders the changes to one key: an operation is decided from the index as it is and applied
// later (after its redo record is durable), so nothing else may change that key in between.
// Bucket-wide changes (delete, versioning state) take their bucket exclusively and wait for the
// key operations in it; key operations wait for them in turn.

type Release = () => void;

class Mutex {
  private tail: Promise<void> = Promise.resolve();

  lock(): Promise<Release> {
    let release!: Release;
    const next = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

/** Readers (key operations) share a bucket; a writer (bucket change) has it alone. */
class SharedLock {
  private readers = 0;
  private writer = false;
  private readonly waiting: Array<{ exclusive: boolean; go: () => void }> = [];

  acquire(exclusive: boolean): Promise<Release> {
    return new Promise((resolve) => {
      const go = (): void => {
        if (exclusive) this.writer = true;
        else this.readers++;
        resolve(() => this.release(exclusive));
      };
      if (this.canEnter(exclusive) && this.waiting.length === 0) go();
      else this.waiting.push({ exclusive, go });
    });
  }

  get idle(): boolean {
    return this.readers === 0 && !this.writer && this.waiting.length === 0;
  }

  private canEnter(exclusive: boolean): boolean {
    return exclusive ? this.readers === 0 && !this.writer : !this.writer;
  }

  private release(exclusive: boolean): void {
    if (exclusive) this.writer = false;
    else this.readers--;
    while (this.waiting.length && this.canEnter(this.waiting[0]!.exclusive)) this.waiting.shift()!.go();
  }
}

export class KeyLocks {
  private readonly keys = new Map<string, { mutex: Mutex; users: number }>();
  private readonly buckets = new Map<string, SharedLock>();

  /**
   * Holds each key and its bucket (shared), taken in one fixed order (buckets, then keys, by name)
   * so that two callers never wait on each other.
   */
  async lockKeys(...items: Array<{ bucket: string; key: string }>): Promise<Release> {
    const buckets = [...new Set(items.map((i) => i.bucket))].sort();
    const ids = [...new Set(items.map((i) => `${i.bucket}\u0000${i.key}`))].sort();
    const releases: Release[] = [];
    for (const b of buckets) releases.push(await this.bucket(b).acquire(false));
    for (const id of ids) releases.push(await this.lockKey(id));
    return () => {
      for (const r of releases.reverse()) r();
      for (const b of buckets) this.forgetBucket(b);
    };
  }

  async lockBucket(bucket: string): Promise<Release> {
    const release = await this.bucket(bucket).acquire(true);
    return () => {
      release();
      this.forgetBucket(bucket);
    };
  }

  private async lockKey(id: string): Promise<Release> {
    let entry = this.keys.get(id);
    if (!entry) this.keys.set(id, (entry = { mutex: new Mutex(), users: 0 }));
    entry.users++;
    const release = await entry.mutex.lock();
    return () => {
      release();
      if (--entry.users === 0) this.keys.delete(id);
    };
  }

  private bucket(name: string): SharedLock {
    let lock = this.buckets.get(name);
    if (!lock) this.buckets.set(name, (lock = new SharedLock()));
    return lock;
  }

  private forgetBucket(name: string): void {
    if (this.buckets.get(name)?.idle) this.buckets.delete(name);
  }
}
