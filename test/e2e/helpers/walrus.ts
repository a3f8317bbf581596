// A Tusk with its publisher on the embedded network, for storage class WALRUS (README "S3 objects
// on Walrus"): the server, an SDK client with one bucket made, and the publisher's URL.

import { expect } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { s3Client, s3Request } from './clients.js';
import type { LocalClientConfig } from '../../../src/publisher/local-network/serve.js';
import { printedBy, publisherOf, startTusk, waitForOutput, type TuskServer } from './server.js';

export interface WalrusTusk {
  server: TuskServer;
  s3: S3Client;
  publisherUrl: string;
}

export async function startWalrusTusk(bucket: string, extraArgs: string[], dataDir?: string, startTimeoutMs?: number): Promise<WalrusTusk> {
  const server = await startTusk({ publisherListen: '127.0.0.1:0', extraArgs, ...(dataDir ? { dataDir } : {}), ...(startTimeoutMs ? { startTimeoutMs } : {}) });
  const { url: publisherUrl } = await publisherOf(server);
  const s3 = s3Client(server);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return { server, s3, publisherUrl };
}

/** The client configuration a `tusk serve --network local` prints (a JSON string inside its log line). */
export async function localClientConfig(server: TuskServer): Promise<LocalClientConfig> {
  const [, json] = await waitForOutput(printedBy(server), /local Walrus network, client config: (\{.*?\})"/);
  return JSON.parse(JSON.parse(`"${json!}"`)) as LocalClientConfig;
}

/** HEAD's response headers (the SDK does not surface x-tusk-walrus-blob-id). */
export async function rawHead(server: TuskServer, bucket: string, key: string): Promise<Record<string, string>> {
  const res = await s3Request(server, { method: 'HEAD', bucket, key });
  expect(res.status).toBe(200);
  return res.headers;
}

/** A quilt patch's bytes from the publisher's aggregator, by its patch id. */
export async function patchRead(publisherUrl: string, patchId: string): Promise<Response> {
  const res = await fetch(`${publisherUrl}/v1/blobs/by-quilt-patch-id/${patchId}`);
  expect(res.status).toBe(200);
  return res;
}

/** An object's bytes (or a range of them) through the SDK. */
export async function objectBytes(s3: S3Client, bucket: string, key: string, range?: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

/** A blob's bytes from the publisher's aggregator, by its blob id. */
export async function blobRead(publisherUrl: string, blobId: string): Promise<Buffer> {
  const res = await fetch(`${publisherUrl}/v1/blobs/${blobId}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
