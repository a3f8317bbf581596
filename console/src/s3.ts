// The console's S3 client: every request is signed here, in the browser, with the signed-in
// user's keys (aws4fetch, SigV4), and sent straight to Tusk's S3 endpoint, which answers CORS for
// the console's origin. XML answers are read with the browser's DOMParser.

import { AwsClient } from 'aws4fetch';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface PageConfig {
  s3: Endpoint;
  publisher?: Endpoint;
  region: string;
}

interface Endpoint {
  scheme: 'http' | 'https';
  /** none: this page's own host name (Tusk listens on every address) */
  host?: string;
  port: number;
}

export function endpointUrl(e: Endpoint): string {
  return `${e.scheme}://${e.host ?? location.hostname}:${e.port}`;
}

export class S3Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface Bucket {
  name: string;
  created: string;
}

export interface Listing {
  folders: string[];
  objects: Array<{ key: string; size: number; modified: string }>;
}

export interface Version {
  versionId: string;
  size: number;
  modified: string;
  latest: boolean;
  deleteMarker: boolean;
}

export interface LifecycleRule {
  id: string;
  prefix: string;
  expirationDays: number;
  /** the rule as GetBucketLifecycleConfiguration answered it: written back unchanged, so that what the
   * editor does not show (transitions, noncurrent versions, filters by tag or size, a disabled status) is kept */
  raw?: string;
}

/** Keys and bucket names in a path: every segment percent-encoded, '/' kept (s3.md §1.2). */
export function objectPath(bucket: string, key = ''): string {
  return `/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

const xml = (text: string) => new DOMParser().parseFromString(text, 'application/xml');
const childText = (el: Element, name: string) => el.getElementsByTagName(name)[0]?.textContent ?? '';
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

async function sha256Base64(body: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

export class S3 {
  readonly endpoint: string;
  private readonly aws: AwsClient;

  constructor(
    readonly config: PageConfig,
    readonly credentials: Credentials,
  ) {
    this.endpoint = endpointUrl(config.s3);
    this.aws = new AwsClient({ ...credentials, service: 's3', region: config.region, retries: 0 });
  }

  /** A signed request; S3 errors become S3Failure with the code of the XML body. */
  async request(method: string, path: string, query: Record<string, string> = {}, init: { headers?: Record<string, string>; body?: BodyInit } = {}): Promise<Response> {
    const url = new URL(this.endpoint + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers = { ...init.headers };
    // a body that is not a string goes unhashed (S3 allows UNSIGNED-PAYLOAD with header auth)
    if (init.body !== undefined && typeof init.body !== 'string') headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
    const signed = await this.aws.sign(url.toString(), { method, headers, body: init.body });
    const res = await fetch(signed);
    if (!res.ok) throw await failure(res);
    return res;
  }

  /** The signed request's URL and headers, for an XMLHttpRequest (upload progress); the body is sent unhashed. */
  async signForXhr(method: string, path: string, query: Record<string, string>, headers: Record<string, string>): Promise<{ url: string; headers: Headers }> {
    const url = new URL(this.endpoint + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const signed = await this.aws.sign(url.toString(), { method, headers: { ...headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } });
    return { url: signed.url, headers: signed.headers };
  }

  /** A presigned URL (query-string SigV4) valid for `seconds`. */
  async presign(method: 'GET' | 'PUT', path: string, seconds: number, query: Record<string, string> = {}): Promise<string> {
    const url = new URL(this.endpoint + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    url.searchParams.set('X-Amz-Expires', String(seconds));
    const signed = await this.aws.sign(url.toString(), { method, aws: { signQuery: true } });
    return signed.url;
  }

  async listBuckets(): Promise<Bucket[]> {
    const doc = xml(await (await this.request('GET', '/')).text());
    return [...doc.getElementsByTagName('Bucket')].map((b) => ({ name: childText(b, 'Name'), created: childText(b, 'CreationDate') }));
  }

  async createBucket(name: string): Promise<void> {
    await this.request('PUT', objectPath(name).slice(0, -1));
  }

  async deleteBucket(name: string): Promise<void> {
    await this.request('DELETE', objectPath(name).slice(0, -1));
  }

  /** One level under `prefix`: its folders (common prefixes) and objects, every page of them. */
  async list(bucket: string, prefix: string): Promise<Listing> {
    const out: Listing = { folders: [], objects: [] };
    let token: string | undefined;
    do {
      const q: Record<string, string> = { 'list-type': '2', delimiter: '/', prefix };
      if (token) q['continuation-token'] = token;
      const doc = xml(await (await this.request('GET', objectPath(bucket).slice(0, -1), q)).text());
      for (const p of doc.getElementsByTagName('CommonPrefixes')) out.folders.push(childText(p, 'Prefix'));
      for (const c of doc.getElementsByTagName('Contents')) {
        out.objects.push({ key: childText(c, 'Key'), size: Number(childText(c, 'Size')), modified: childText(c, 'LastModified') });
      }
      token = childText(doc.documentElement, 'IsTruncated') === 'true' ? childText(doc.documentElement, 'NextContinuationToken') : undefined;
    } while (token);
    return out;
  }

  async head(bucket: string, key: string, versionId?: string): Promise<Headers> {
    return (await this.request('HEAD', objectPath(bucket, key), versionId ? { versionId } : {})).headers;
  }

  async deleteObject(bucket: string, key: string, versionId?: string): Promise<void> {
    await this.request('DELETE', objectPath(bucket, key), versionId ? { versionId } : {});
  }

  async tags(bucket: string, key: string): Promise<Array<[string, string]>> {
    const doc = xml(await (await this.request('GET', objectPath(bucket, key), { tagging: '' })).text());
    return [...doc.getElementsByTagName('Tag')].map((t) => [childText(t, 'Key'), childText(t, 'Value')]);
  }

  async versions(bucket: string, key: string): Promise<Version[]> {
    const doc = xml(await (await this.request('GET', objectPath(bucket).slice(0, -1), { versions: '', prefix: key })).text());
    const all = [...doc.documentElement.children].filter((e) => (e.tagName === 'Version' || e.tagName === 'DeleteMarker') && childText(e, 'Key') === key);
    return all.map((e) => ({
      versionId: childText(e, 'VersionId'),
      size: Number(childText(e, 'Size') || 0),
      modified: childText(e, 'LastModified'),
      latest: childText(e, 'IsLatest') === 'true',
      deleteMarker: e.tagName === 'DeleteMarker',
    }));
  }

  async versioning(bucket: string): Promise<string> {
    const doc = xml(await (await this.request('GET', objectPath(bucket).slice(0, -1), { versioning: '' })).text());
    return childText(doc.documentElement, 'Status') || 'Off';
  }

  async putVersioning(bucket: string, status: 'Enabled' | 'Suspended'): Promise<void> {
    const body = `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>${status}</Status></VersioningConfiguration>`;
    await this.request('PUT', objectPath(bucket).slice(0, -1), { versioning: '' }, { body });
  }

  async lifecycle(bucket: string): Promise<LifecycleRule[]> {
    try {
      const doc = xml(await (await this.request('GET', objectPath(bucket).slice(0, -1), { lifecycle: '' })).text());
      return [...doc.getElementsByTagName('Rule')].map((r) => ({
        id: childText(r, 'ID'),
        prefix: childText(r, 'Prefix'),
        expirationDays: Number(childText(r.getElementsByTagName('Expiration')[0] ?? r, 'Days') || 0),
        raw: new XMLSerializer().serializeToString(r),
      }));
    } catch (e) {
      if (e instanceof S3Failure && e.code === 'NoSuchLifecycleConfiguration') return [];
      throw e;
    }
  }

  /** The rules read (written back as they were) and the editor's new ones: expiration after N days under a prefix. */
  async putLifecycle(bucket: string, rules: LifecycleRule[]): Promise<void> {
    const path = objectPath(bucket).slice(0, -1);
    if (rules.length === 0) {
      await this.request('DELETE', path, { lifecycle: '' });
      return;
    }
    const body =
      '<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      rules
        .map((r) => r.raw ?? `<Rule><ID>${escapeXml(r.id)}</ID><Filter><Prefix>${escapeXml(r.prefix)}</Prefix></Filter><Status>Enabled</Status><Expiration><Days>${r.expirationDays}</Days></Expiration></Rule>`)
        .join('') +
      '</LifecycleConfiguration>';
    await this.requestWithChecksum('PUT', path, { lifecycle: '' }, body);
  }

  /**
   * PutBucketLifecycleConfiguration and DeleteObjects require Content-MD5 or a flexible checksum
   * (AWS API reference, "checksum required"); WebCrypto has no MD5.
   */
  private async requestWithChecksum(method: string, path: string, query: Record<string, string>, body: string): Promise<Response> {
    return this.request(method, path, query, { body, headers: { 'x-amz-checksum-sha256': await sha256Base64(body) } });
  }

  /** DeleteObjects, 1000 keys a request (its limit); a key it could not delete fails the whole call, naming it. */
  async deleteObjects(bucket: string, keys: string[]): Promise<void> {
    const failed: string[] = [];
    for (let i = 0; i < keys.length; i += 1000) {
      const body =
        '<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>' +
        keys
          .slice(i, i + 1000)
          .map((k) => `<Object><Key>${escapeXml(k)}</Key></Object>`)
          .join('') +
        '</Delete>';
      const doc = xml(await (await this.requestWithChecksum('POST', objectPath(bucket).slice(0, -1), { delete: '' }, body)).text());
      for (const e of doc.getElementsByTagName('Error')) failed.push(`${childText(e, 'Key')}: ${childText(e, 'Code')}`);
    }
    if (failed.length) throw new Error(`Not deleted: ${failed.join(', ')}`);
  }

  async policy(bucket: string): Promise<string | undefined> {
    try {
      return await (await this.request('GET', objectPath(bucket).slice(0, -1), { policy: '' })).text();
    } catch (e) {
      if (e instanceof S3Failure && e.code === 'NoSuchBucketPolicy') return undefined;
      throw e;
    }
  }

  async putPolicy(bucket: string, policy: string): Promise<void> {
    await this.request('PUT', objectPath(bucket).slice(0, -1), { policy: '' }, { body: policy, headers: { 'content-type': 'application/json' } });
  }

  async deletePolicy(bucket: string): Promise<void> {
    await this.request('DELETE', objectPath(bucket).slice(0, -1), { policy: '' });
  }

  /**
   * The admin API (/tusk/admin/v1/, root key only): JSON in and out; its bodies must be signed, so
   * x-amz-content-sha256 is the body's own hash, never UNSIGNED-PAYLOAD.
   */
  async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const text = body === undefined ? '' : JSON.stringify(body);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
    const hex = [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
    const headers: Record<string, string> = { 'x-amz-content-sha256': hex };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const signed = await this.aws.sign(`${this.endpoint}/tusk/admin/v1/${path}`, { method, headers, body: body === undefined ? undefined : text });
    const res = await fetch(signed);
    const answer = (await res.json().catch(() => ({}))) as T & { error?: string; message?: string };
    if (!res.ok) throw new S3Failure(res.status, answer.error ?? `HTTP ${res.status}`, answer.message ?? '');
    return answer;
  }

  /** The S3 endpoint's operator paths (/tusk/health/ready, /tusk/metrics): unsigned, as Prometheus reads them. */
  async operator(path: string): Promise<Response> {
    return fetch(this.endpoint + path, { cache: 'no-store' });
  }

  xml = xml;
  childText = childText;
}

async function failure(res: Response): Promise<S3Failure> {
  const text = res.status === 304 || res.headers.get('content-length') === '0' ? '' : await res.text().catch(() => '');
  const doc = text.startsWith('<') ? xml(text) : undefined;
  const code = (doc && childText(doc.documentElement, 'Code')) || `HTTP ${res.status}`;
  const message = (doc && childText(doc.documentElement, 'Message')) || res.statusText;
  return new S3Failure(res.status, code, message);
}
