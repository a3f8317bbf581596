// Process lifecycle: start on port 0, graceful SIGTERM (exit 0, also with idle keep-alive clients),
// data surviving a restart.

import { ListBucketsCommand, PutObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client, s3Request } from './helpers/clients.js';
import { bucketName, makeTempDirFixture } from './helpers/fixtures.js';
import { startTusk } from './helpers/server.js';

describe('server lifecycle', () => {
  it('SIGTERM exits 0 promptly even with an idle keep-alive SDK connection', async () => {
    const server = await startTusk();
    try {
      const s3 = s3Client(server);
      await s3.send(new ListBucketsCommand({}));
      const t0 = Date.now();
      const code = await server.stop(10_000);
      expect(code, server.output().slice(-500)).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5_000);
      s3.destroy();
    } finally {
      await server.dispose();
    }
  });

  it('keeps objects and credentials across a graceful restart', async () => {
    const dir = makeTempDirFixture();
    try {
      const first = await startTusk({ dataDir: dir.path });
      const b = bucketName();
      const s3 = s3Client(first);
      await s3Request(first, { method: 'PUT', bucket: b });
      await s3.send(new PutObjectCommand({ Bucket: b, Key: 'persist me', Body: 'still here' }));
      s3.destroy();
      await first.stop(10_000);
      const second = await startTusk({ dataDir: dir.path, root: first.root });
      try {
        const out = await s3Client(second).send(new GetObjectCommand({ Bucket: b, Key: 'persist me' }));
        expect(await out.Body!.transformToString()).toBe('still here');
      } finally {
        await second.dispose();
      }
    } finally {
      dir.remove();
    }
  });
});
