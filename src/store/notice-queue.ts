// The stored notices of bucket notifications (src/notify): read in commit order, and settled
// (which targets have each one) in one index write transaction.

import type { IndexDb } from './index-db.js';
import type { IndexWrites } from './index-writes.js';
import type { StoredNotice } from './redo-ops.js';

/** Stored notices past seq `after`, in commit order, at most `limit`. */
export function storedNotices(index: IndexDb, after: number, limit: number): StoredNotice[] {
  return Array.from(index.notices.getRange({ start: after + 1, limit }), (e) => e.value);
}

/** Records which targets have each notice; `done: null` removes it (every target has it). */
export async function settleNotices(writes: IndexWrites, index: IndexDb, updates: ReadonlyArray<{ seq: number; done: string[] | null }>): Promise<void> {
  await writes.transact(() => {
    for (const { seq, done } of updates) {
      // the common case, every target has it: no need to read (and decode) the notice to drop it
      if (done === null) {
        index.notices.removeSync(seq);
        continue;
      }
      const notice = index.notices.get(seq);
      if (notice) index.notices.putSync(seq, { ...notice, done });
    }
    return undefined;
  });
}
