import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { canonicalQuery, EMPTY_SHA256, SigV4Signer, uriEncode, type Credentials } from './sigv4-client.js';

/** A signed S3 request over a keep-alive agent; the body is sent from existing buffers, never copied. */
export interface S3Request {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE' | 'POST';
  bucket: string;
  key?: string;
  query?: [string, string][];
  headers?: Record<string, string>;
  body?: readonly Buffer[];
  /** Defaults to the SHA-256 of the empty string when there is no body. */
  payloadHash?: string;
  /** Streams a 2xx response body here instead of collecting it; the chunk may be reused once this returns. */
  onChunk?: (chunk: Buffer) => void;
}

export interface S3Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Collected body when no onChunk was given (error bodies are always collected, up to MAX_COLLECT). */
  body: Buffer;
  /** performance.now() when the first body byte (or, for an empty body, the headers) arrived. */
  firstByteAt: number;
}

/** A request that got no HTTP answer; `code` is `net:<errno>` or `net:timeout`. */
export class NetworkError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export const MAX_COLLECT = 64 * 1024 * 1024;

export interface ClientOptions {
  endpoint: string;
  credentials: Credentials;
  addressing: 'path' | 'virtual';
  concurrency: number;
  timeoutMs: number;
}

/** What the scenarios drive: `HttpS3Client` (node:http) or `RawS3Client` (raw-client.ts, `--client raw`). */
export interface S3Client {
  send(req: S3Request): Promise<S3Response>;
  close(): void;
}

/** The signed request line target and headers shared by both clients. */
export interface SignedRequest {
  /** Encoded path plus `?query` when there is one: the request-target as sent. */
  target: string;
  /** Lower-case names: host, the caller's headers, content-length (with a body), the x-amz-* and authorization. */
  headers: Record<string, string>;
}

/** Path-style or virtual-hosted target, content-length and SigV4 headers for `req` (spec/s3.md §2.3). */
export function signRequest(url: URL, addressing: 'path' | 'virtual', signer: SigV4Signer, req: S3Request): SignedRequest {
  const virtual = addressing === 'virtual';
  const basePath = url.pathname.replace(/\/+$/, '');
  const objectPart = req.key === undefined ? '' : `/${uriEncode(req.key, true)}`;
  const path = virtual
    ? `${basePath}${objectPart || '/'}`
    : `${basePath}/${uriEncode(req.bucket, false)}${objectPart}`;
  const query = req.query ? canonicalQuery(req.query) : '';
  const host = virtual ? `${req.bucket}.${url.host}` : url.host;
  let length = 0;
  for (const part of req.body ?? []) length += part.length;
  const headers: Record<string, string> = { host, ...req.headers };
  if (req.body) headers['content-length'] = String(length);
  signer.sign({ method: req.method, path, query, headers, payloadHash: req.payloadHash ?? EMPTY_SHA256 });
  return { target: query ? `${path}?${query}` : path, headers };
}

export class HttpS3Client implements S3Client {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly signer: SigV4Signer;
  private readonly transport: typeof http | typeof https;

  constructor(private readonly options: ClientOptions) {
    this.url = new URL(options.endpoint);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new Error(`endpoint must be http:// or https://, got ${options.endpoint}`);
    }
    this.transport = this.url.protocol === 'https:' ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency };
    this.agent = this.url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.signer = new SigV4Signer(options.credentials);
  }

  close(): void {
    this.agent.destroy();
  }

  send(req: S3Request): Promise<S3Response> {
    const { target, headers } = signRequest(this.url, this.options.addressing, this.signer, req);

    return new Promise<S3Response>((resolve, reject) => {
      const request = this.transport.request({
        agent: this.agent,
        hostname: this.url.hostname,
        port: this.url.port,
        method: req.method,
        path: target,
        headers,
        timeout: this.options.timeoutMs,
      });
      let settled = false;
      const fail = (code: string, message: string) => {
        if (settled) return;
        settled = true;
        request.destroy();
        reject(new NetworkError(code, message));
      };
      request.on('timeout', () => fail('net:timeout', `no answer within ${this.options.timeoutMs} ms`));
      request.on('error', (err: NodeJS.ErrnoException) => fail(`net:${err.code ?? 'error'}`, err.message));
      request.on('response', (res) => {
        const stream = res.statusCode! < 300 && req.onChunk ? req.onChunk : undefined;
        const collected: Buffer[] = [];
        let collectedBytes = 0;
        let firstByteAt = 0;
        res.on('data', (chunk: Buffer) => {
          if (firstByteAt === 0) firstByteAt = performance.now();
          if (stream) {
            stream(chunk);
          } else if (collectedBytes < MAX_COLLECT) {
            collected.push(chunk);
            collectedBytes += chunk.length;
          }
        });
        res.on('error', (err: NodeJS.ErrnoException) => fail(`net:${err.code ?? 'error'}`, err.message));
        res.on('aborted', () => fail('net:aborted', 'response aborted'));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(collected),
            firstByteAt: firstByteAt || performance.now(),
          });
        });
      });
      for (const part of req.body ?? []) request.write(part);
      request.end();
    });
  }
}

/** The error bucket a failed answer is counted under: the S3 error Code, else `HTTP <status>`. */
export function errorCode(res: S3Response): string {
  const code = /<Code>([^<]+)<\/Code>/.exec(res.body.toString('utf8', 0, Math.min(res.body.length, 4096)));
  return code ? code[1]! : `HTTP ${res.status}`;
}
