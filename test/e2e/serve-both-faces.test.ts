// `tusk serve` runs both faces in one process: S3 and the Walrus publisher/aggregator, the latter
// with its generated endpoint key, its ledger and 10 in-process storage nodes.

import { describe, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { publisherOf, startTusk } from './helpers/server.js';

describe('tusk serve with the publisher on', () => {
  it('serves S3 and the publisher over one storage engine process, and stops cleanly', async () => {
    const server = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs: ['--n-shards', '10'] });
    try {
      const { url: publisherUrl, key } = await publisherOf(server);
      expect(await (await fetch(`${publisherUrl}/status`)).text()).toBe('OK');

      const blob = Buffer.from('walrus blob id v1 regression test');
      const put = await fetch(`${publisherUrl}/${key}/v1/blobs?epochs=2`, { method: 'PUT', body: blob });
      expect(put.status).toBe(200);
      const created = (await put.json()) as { newlyCreated: { blobObject: { blobId: string; storage: { startEpoch: number; endEpoch: number } } } };
      // walrus.md §13: the published id of this input at n = 10
      expect(created.newlyCreated.blobObject.blobId).toBe('RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY');
      const storage = created.newlyCreated.blobObject.storage;
      expect(storage.endEpoch - storage.startEpoch).toBe(2);
      const read = await fetch(`${publisherUrl}/v1/blobs/${created.newlyCreated.blobObject.blobId}`);
      expect(Buffer.from(await read.arrayBuffer())).toEqual(blob);

      const s3 = s3Client(server);
      const b = bucketName();
      await s3.send(new CreateBucketCommand({ Bucket: b }));
      await s3.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'both faces' }));
      expect(await (await s3.send(new GetObjectCommand({ Bucket: b, Key: 'k' }))).Body!.transformToString()).toBe('both faces');
      s3.destroy();
      expect(await server.stop(15_000)).toBe(0);
    } finally {
      await server.dispose();
    }
  });
});
