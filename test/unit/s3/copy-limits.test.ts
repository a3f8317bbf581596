// The 5 GiB copy-source limit (s3.md §3.18, §3.22, §6) through the handlers and the one error
// renderer: a 5 GiB source cannot be written on this machine, so the store reports one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, OWNER_ID, type Harness } from './helpers/harness.js';

const GiB = 1024 ** 3;
let h: Harness;
beforeAll(async () => {
  h = await openHarness();
  await h.store.createBucket({ name: 'lim', owner: OWNER_ID, created: 0, acl: 'private', objectLock: false, versioning: 'Unversioned' });
  expect((await h.request('PUT', '/lim/huge', { body: 'stand-in' })).status).toBe(200);
  const real = h.store.getObject.bind(h.store);
  h.store.getObject = (bucket, key, versionId) => {
    const found = real(bucket, key, versionId);
    return found && key === 'huge' ? { ...found, size: 5 * GiB + 1 } : found;
  };
});
afterAll(() => h.close());

describe('copy sources over 5 GiB', () => {
  it('CopyObject answers InvalidRequest naming the limit', async () => {
    const r = await h.request('PUT', '/lim/dst', { headers: { 'x-amz-copy-source': '/lim/huge' } });
    expect(r.status).toBe(400);
    expect(r.body).toContain('<Code>InvalidRequest</Code><Message>The specified copy source is larger than the maximum allowable size for a copy source: 5368709120</Message>');
    expect(r.body).toMatch(/<RequestId>REQ\d+<\/RequestId>/);
    expect(h.store.getObject('lim', 'dst')).toBeUndefined();
  });

  it('UploadPartCopy of the whole source too; a range within 5 GiB is accepted as a range', async () => {
    const created = await h.request('POST', '/lim/mp?uploads');
    const uploadId = /<UploadId>([^<]+)</.exec(created.body)![1]!;
    const whole = await h.request('PUT', `/lim/mp?partNumber=1&uploadId=${uploadId}`, { headers: { 'x-amz-copy-source': '/lim/huge' } });
    expect(whole.status).toBe(400);
    expect(whole.body).toContain('<Code>InvalidRequest</Code>');
    const tooLong = await h.request('PUT', `/lim/mp?partNumber=1&uploadId=${uploadId}`, {
      headers: { 'x-amz-copy-source': '/lim/huge', 'x-amz-copy-source-range': `bytes=0-${5 * GiB}` },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toContain('<Code>InvalidArgument</Code>');
  });
});
