// The notifier reads the notices as every version stored them: an older version's rules carry their
// event types always (matched against the event's name on delivery), this one's only when the
// engine's outcome decides the name (src/s3/notification.ts noticeOf). A real webhook receiver.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Notifier } from '../../../src/notify/notifier.js';
import type { StoredNotice } from '../../../src/store/redo-ops.js';

const ARN = 'arn:tusk:sqs:us-east-1:hook:webhook';

function notice(seq: number, rules: StoredNotice['ev']['rules'], name = 'ObjectCreated:Put'): StoredNotice {
  return { seq, t: 'put', b: 'bkt', k: `k${seq}`, versionId: null, size: 1, etag: 'e', ev: { name, rules, user: 'u', ip: '127.0.0.1', rid: 'R', time: 0, owner: 'o' } };
}

describe('notifier', () => {
  it('delivers stored notices of the older format (rules with events) and of this one (without)', async () => {
    const got: string[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { Records } = JSON.parse(Buffer.concat(chunks).toString()) as { Records: Array<{ eventName: string; s3: { configurationId: string; object: { key: string } } }> };
        for (const r of Records) got.push(`${r.s3.object.key} ${r.eventName} ${r.s3.configurationId}`);
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const stored = [
      notice(1, [{ id: 'copies', arn: ARN, events: ['s3:ObjectCreated:Copy'] }]),
      notice(2, [{ id: 'all', arn: ARN, events: ['s3:ObjectCreated:*'] }]),
      notice(3, [{ id: 'new', arn: ARN }]),
    ];
    const settled: Array<{ seq: number; done: string[] | null }> = [];
    const store = {
      notices: (after: number, limit: number) => stored.filter((n) => n.seq > after).slice(0, limit),
      settleNotices: async (updates: ReadonlyArray<{ seq: number; done: string[] | null }>) => void settled.push(...updates),
      onNotice: undefined,
    };
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const notifier = await Notifier.start(store, { targets: [{ id: 'hook', kind: 'webhook', url }], queueLimit: 100 }, 'us-east-1', () => undefined);
    try {
      for (let i = 0; notifier.status()[0]!.delivered < 2 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await notifier.close();
      receiver.close();
    }
    expect(got).toEqual(['k2 ObjectCreated:Put all', 'k3 ObjectCreated:Put new']);
    // all three leave the store: the first had no rule for its event
    expect(settled.map((s) => [s.seq, s.done]).sort()).toEqual([[1, null], [2, null], [3, null]]);
  });
});
