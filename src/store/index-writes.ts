// Index write transactions: a body that decides inside the transaction, its Failure a rejection once
// the transaction has ended, and in strict mode an acknowledgement only once LMDB has flushed.

import { asStoreError } from './errors.js';
import type { IndexDb } from './index-db.js';
import { failed, type Outcome } from './outcome.js';

export class IndexWrites {
  constructor(
    private readonly index: IndexDb,
    private readonly strict: boolean,
    private readonly counter: { indexFlushWaits: number },
    private readonly assertOpen: () => void,
  ) {}

  /** Runs `body` in one index write transaction, acknowledged only once durable (strict mode). */
  async write<T>(body: () => Outcome<T>): Promise<T> {
    const outcome = await this.transact(body);
    await this.flushed();
    return outcome;
  }

  /** One index write transaction, acknowledged once committed (durability comes from the redo log). */
  async transact<T>(body: () => Outcome<T>): Promise<T> {
    this.assertOpen();
    let outcome: Outcome<T>;
    try {
      outcome = await this.index.env.transaction(body);
    } catch (e) {
      throw asStoreError(e);
    }
    if (failed(outcome)) throw outcome.fail;
    return outcome;
  }

  /** Strict mode acknowledges only what LMDB has flushed (its commits overlap their syncs). */
  private async flushed(): Promise<void> {
    if (!this.strict) return;
    this.counter.indexFlushWaits++;
    try {
      await this.index.env.flushed;
    } catch (e) {
      throw asStoreError(e);
    }
  }
}
