// Real clients against a test server: the AWS JS SDK at its default settings, Debian's aws-cli, and
// raw signed requests (helpers/sigv4.ts over helpers/raw-http.ts) for everything an SDK will not send.

import { S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRequest, type RawResponse } from './raw-http.js';
import type { Credentials, TuskServer } from './server.js';
import { buildQuery, sha256Hex, signHeaders, type HeaderList, objectPath } from './sigv4.js';

/** SDK client at default settings (flexible checksums on); path style since the endpoint is an IP. */
export function s3Client(server: TuskServer, config: Partial<S3ClientConfig> = {}): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: server.root,
    ...config,
  });
}

export interface S3RequestOptions {
  method: string;
  bucket?: string;
  key?: string;
  /** raw request path; overrides bucket/key */
  path?: string;
  query?: string | Array<[string, string]> | Record<string, string>;
  headers?: HeaderList | Record<string, string>;
  body?: Buffer | string;
  /** null = anonymous (no Authorization) */
  credentials?: Credentials | null;
  /** x-amz-content-sha256 value; default: hex SHA-256 of the body */
  payloadHash?: string;
  /** Host header; default 127.0.0.1:<port> */
  host?: string;
  date?: Date;
  region?: string;
  signedHeaders?: string[];
  omitContentSha256?: boolean;
  /** Content-Length to declare; default: body length for bodies and PUT/POST; null = omit */
  contentLength?: number | null;
  waitForContinue?: boolean;
  /** last chance to edit the signed header list (tamper tests) */
  mutate?: (headers: HeaderList) => HeaderList;
}

/** One raw S3 request, SigV4-signed with the server's root key unless told otherwise. */
export async function s3Request(server: TuskServer, opts: S3RequestOptions): Promise<RawResponse> {
  const path = opts.path ?? (opts.bucket === undefined ? '/' : objectPath(opts.bucket, opts.key));
  const query = typeof opts.query === 'string' ? opts.query : opts.query ? buildQuery(opts.query) : '';
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const host = opts.host ?? `127.0.0.1:${server.port}`;
  let headers: HeaderList = [['host', host]];
  const extra = opts.headers ?? [];
  headers.push(...(Array.isArray(extra) ? extra : Object.entries(extra)));
  const length =
    opts.contentLength !== undefined
      ? opts.contentLength
      : body !== undefined || opts.method === 'PUT' || opts.method === 'POST'
        ? (body?.length ?? 0)
        : null;
  if (length !== null && !headers.some(([n]) => n.toLowerCase() === 'content-length')) {
    headers.push(['content-length', String(length)]);
  }
  const credentials = opts.credentials === undefined ? server.root : opts.credentials;
  if (credentials) {
    headers = signHeaders({
      method: opts.method,
      path,
      query,
      headers,
      credentials,
      region: opts.region ?? server.region,
      date: opts.date,
      payloadHash: opts.payloadHash ?? sha256Hex(body ?? Buffer.alloc(0)),
      signedHeaders: opts.signedHeaders,
      omitContentSha256: opts.omitContentSha256,
    }).headers;
  }
  if (opts.mutate) headers = opts.mutate(headers);
  return rawRequest({
    port: server.port,
    method: opts.method,
    target: query ? `${path}?${query}` : path,
    headers,
    body,
    waitForContinue: opts.waitForContinue,
  });
}

/** Replaces (or removes, with undefined) a header in a header list. */
export function setHeader(headers: HeaderList, name: string, value: string | undefined): HeaderList {
  const out = headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  if (value !== undefined) out.push([name, value]);
  return out;
}

export const AWS_CLI = '/usr/bin/aws';

/** A Debian client tool at `path`, installed with apt-get when missing; undefined if it cannot be installed. */
export function ensureDebianTool(path: string, pkg: string): string | undefined {
  if (!existsSync(path)) {
    try {
      execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', pkg], {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        timeout: 300_000,
      });
    } catch {
      // reported below
    }
  }
  if (existsSync(path)) return path;
  console.warn(`${path} is missing and \`apt-get install ${pkg}\` failed: its tests are skipped`);
  return undefined;
}

/** Debian's aws-cli (the `aws` on PATH may be a pyenv shim); installed with apt-get when missing. */
export function ensureAwsCli(): string {
  const path = ensureDebianTool(AWS_CLI, 'awscli');
  if (!path) throw new Error(`${AWS_CLI} missing after apt-get install awscli`);
  return path;
}

export interface AwsResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `aws <args> --endpoint-url <server>` with throw-away config/credential files (path style). */
export async function runAws(
  server: TuskServer,
  args: string[],
  opts: { input?: Buffer; credentials?: Credentials; timeoutMs?: number } = {},
): Promise<AwsResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-awscli-'));
  const creds = opts.credentials ?? server.root;
  writeFileSync(join(dir, 'config'), `[default]\nregion = ${server.region}\ns3 =\n  addressing_style = path\n`);
  writeFileSync(
    join(dir, 'credentials'),
    `[default]\naws_access_key_id = ${creds.accessKeyId}\naws_secret_access_key = ${creds.secretAccessKey}\n`,
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) env[k] = v;
  Object.assign(env, {
    AWS_CONFIG_FILE: join(dir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_PAGER: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    HOME: dir,
  });
  try {
    return await runProcess(AWS_CLI, [...args, '--endpoint-url', server.endpoint], { env, cwd: dir, input: opts.input, timeoutMs: opts.timeoutMs });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The S3 error an SDK call fails with; throws when it succeeds or fails otherwise. */
export async function sdkError(p: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await p;
  } catch (e) {
    if (e instanceof S3ServiceException) return e;
    throw e;
  }
  throw new Error('expected the request to fail');
}

/** Runs a client process to its end (killed after `timeoutMs`), collecting its output. */
export function runProcess(
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: Buffer; timeoutMs?: number } = {},
): Promise<AwsResult> {
  return new Promise<AwsResult>((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env ?? process.env, cwd: opts.cwd });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.end(opts.input);
  });
}
