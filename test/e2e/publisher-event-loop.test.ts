// While a 64 MiB blob is read, encoded (in the worker pool) and spread over the in-process storage
// nodes, the same process keeps answering S3 requests promptly (architecture.md "Worker pool").

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startPublisherProcess } from './helpers/publisher.js';
import { getBytes, putBlob } from './helpers/publisher-client.js';

const MIB = 1024 * 1024;
/** Generous for a loaded 2-core CI machine, far below the seconds a blocking 64 MiB encode takes. */
const MAX_S3_LATENCY_MS = 1_000;

describe('event loop during a 64 MiB publish', () => {
  it('S3 answers while the blob is stored, and the blob reads back identical', async () => {
    const pub = await startPublisherProcess({ nShards: 100, withS3: true, maxBodyBytes: 80 * MIB });
    try {
      const blob = randomBytes(64 * MIB);
      let storing = true;
      const started = performance.now();
      const store = putBlob(pub.url, `/${pub.endpointKey}/v1/blobs`, blob).finally(() => (storing = false));
      const latencies: number[] = [];
      while (storing) {
        const t0 = performance.now();
        // An unsigned S3 request: the answer (403 AccessDenied) needs only the event loop.
        const r = await fetch(`${pub.s3Url}/`);
        await r.arrayBuffer();
        latencies.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const stored = await store;
      const elapsedMs = performance.now() - started;
      expect(stored.status, stored.text).toBe(200);
      const worst = Math.max(...latencies);
      console.log(`64 MiB stored in ${elapsedMs.toFixed(0)} ms; ${latencies.length} S3 requests meanwhile, worst ${worst.toFixed(1)} ms`);
      expect(latencies.length).toBeGreaterThan(5);
      expect(worst).toBeLessThan(MAX_S3_LATENCY_MS);

      const back = await getBytes(pub.url, `/v1/blobs/${stored.json.newlyCreated.blobObject.blobId}`);
      expect(back.status).toBe(200);
      expect(back.body.equals(blob)).toBe(true);
    } finally {
      await pub.dispose();
    }
  }, 300_000);
});
