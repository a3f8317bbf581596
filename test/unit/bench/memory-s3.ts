import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny in-memory S3 stand-in for generator tests (path-style, no auth, no multipart). With `corruptGets`,
 * every GET body has one byte flipped — the endpoint a benchmark must never report as fast.
 */
export interface MemoryS3 {
  url: string;
  objects: Map<string, Buffer>;
  buckets: Set<string>;
  requests: Map<string, number>;
  /** the x-amz-storage-class each stored object was PUT with, by `bucket/key` */
  storageClasses: Map<string, string>;
  close(): Promise<void>;
}

export async function startMemoryS3(options: { corruptGets?: boolean; truncateGets?: boolean; delayMs?: number } = {}): Promise<MemoryS3> {
  const objects = new Map<string, Buffer>();
  const buckets = new Set<string>();
  const requests = new Map<string, number>();
  const storageClasses = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    requests.set(req.method!, (requests.get(req.method!) ?? 0) + 1);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(answer, options.delayMs ?? 0));
    const answer = () => {
      const id = `${bucket}/${key}`;
      if (!key) {
        if (req.method === 'HEAD') res.writeHead(buckets.has(bucket) ? 200 : 404).end();
        else if (req.method === 'PUT') (buckets.add(bucket), res.writeHead(200).end());
        else if (req.method === 'DELETE') (buckets.delete(bucket), res.writeHead(204).end());
        else res.writeHead(501).end('<Error><Code>NotImplemented</Code></Error>');
        return;
      }
      if (url.search.includes('uploads') || url.search.includes('uploadId')) {
        res.writeHead(501).end('<Error><Code>NotImplemented</Code></Error>');
      } else if (req.method === 'PUT') {
        objects.set(id, Buffer.concat(chunks));
        const storageClass = req.headers['x-amz-storage-class'];
        if (typeof storageClass === 'string') storageClasses.set(id, storageClass);
        res.writeHead(200, { etag: '"x"' }).end();
      } else if (req.method === 'DELETE') {
        objects.delete(id);
        storageClasses.delete(id);
        res.writeHead(204).end();
      } else if (!objects.has(id)) {
        res.writeHead(404).end(req.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code></Error>');
      } else if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-length': objects.get(id)!.length }).end();
      } else {
        let body = Buffer.from(objects.get(id)!);
        if (options.corruptGets && body.length > 0) body[body.length >> 1]! ^= 0x01;
        if (options.truncateGets) body = body.subarray(0, body.length - 1);
        res.writeHead(200, { 'content-length': body.length }).end(body);
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    buckets,
    requests,
    storageClasses,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
