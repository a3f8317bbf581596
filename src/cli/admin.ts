// `tusk admin`: the admin API from the command line, signed with the root key (SigV4).

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT_FILE } from '../identity/accounts.js';
import { SigV4Signer, uriEncode } from '../bench/sigv4-client.js';
import { parseSize } from '../config/values.js';
import { ADMIN_API_PREFIX } from '../admin/api.js';

export const ADMIN_USAGE = `Usage: tusk admin <command> [options]

Commands:
  info                            version, uptime, disk, format versions
  accounts list
  accounts create NAME            prints the new account's access key id and secret (shown once)
  accounts disable|enable NAME    a disabled account's keys are refused at once
  accounts delete NAME            refused while the account owns buckets
  keys create ACCOUNT             another key for ACCOUNT (secret shown once)
  keys rotate ACCESS_KEY_ID       replaces the key by a new one (the old one stops working)
  keys delete ACCESS_KEY_ID
  buckets list
  buckets usage BUCKET            objects and bytes of current versions; all versions and delete markers; incomplete uploads
  buckets quota BUCKET            show; with --max-bytes SIZE and/or --max-objects N: set; with --clear: remove
  buckets walrus-import BUCKET    rebuild BUCKET's WALRUS objects from the wallet's quilts and blob attributes on the network
  notify status                   each bucket notification target: pending, delivered, failed, dropped, up
  kms list [--account NAME]       SSE-KMS keys (of one account)
  kms create [--id ID] [--account NAME] [--description TEXT]
                                  a new key of NAME (default root); --id names it (default: a UUID)
  kms describe KEY                a key by id, ARN or alias (aliases of --account)
  kms enable|disable KEY          a disabled key's objects are unreadable until it is enabled again
  kms rotate KEY                  a new key version for new objects; older versions still decrypt
  kms schedule-deletion KEY [--days N]
                                  deleted after N days (7-30, default 30); unusable meanwhile
  kms cancel-deletion KEY         back to Disabled, as AWS
  kms alias ALIAS KEY             points alias/NAME of --account at KEY; with --delete (no KEY): removes it

Options:
  --endpoint URL         the S3 listener (TUSK_ENDPOINT, default http://127.0.0.1:9000)
  --region REGION        (TUSK_REGION, default us-east-1)
  --data-dir DIR         read the root key from DIR/${ROOT_FILE} (TUSK_DATA_DIR)
  --ca-bundle FILE       trust this CA certificate for https endpoints
  Root credentials: TUSK_ACCESS_KEY_ID / TUSK_SECRET_ACCESS_KEY, else the data directory's file.`;

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

function rootCredentials(dataDir: string | undefined, env: NodeJS.ProcessEnv): Credentials {
  if (env.TUSK_ACCESS_KEY_ID && env.TUSK_SECRET_ACCESS_KEY) {
    return { accessKeyId: env.TUSK_ACCESS_KEY_ID, secretAccessKey: env.TUSK_SECRET_ACCESS_KEY };
  }
  const file = join(resolve(dataDir ?? './data'), ROOT_FILE);
  let parsed: Partial<Credentials>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>;
  } catch (e) {
    throw new Error(`no root credentials: set TUSK_ACCESS_KEY_ID and TUSK_SECRET_ACCESS_KEY, or --data-dir (${file}: ${(e as Error).message})`);
  }
  // the server keeps no root key there while the environment gives it one
  if (!parsed.accessKeyId || !parsed.secretAccessKey) {
    throw new Error(`no root credentials: ${file} holds no root key (the server takes it from the environment): set TUSK_ACCESS_KEY_ID and TUSK_SECRET_ACCESS_KEY`);
  }
  return { accessKeyId: parsed.accessKeyId, secretAccessKey: parsed.secretAccessKey };
}

interface Call {
  method: string;
  path: string;
  /** query parameters (a name, for GET and DELETE) */
  query?: Record<string, string>;
  body?: unknown;
}

/** --account as the query of a GET or DELETE. */
function accountQuery(values: AdminCallOptions): Pick<Call, 'query'> {
  return values.account ? { query: { account: values.account } } : {};
}

/** The API call a command line names. */
export interface AdminCallOptions {
  'max-bytes'?: string;
  'max-objects'?: string;
  clear?: boolean;
  account?: string;
  id?: string;
  description?: string;
  days?: string;
  delete?: boolean;
}

export function adminCall(positionals: string[], values: AdminCallOptions): Call {
  const [group, action, arg, ...extra] = positionals;
  const need = (what: string) => {
    if (!arg) throw new UsageError(`tusk admin ${group} ${action}: missing ${what}`);
    if (extra.length) throw new UsageError(`tusk admin ${group} ${action}: unexpected '${extra[0]}'`);
    return encodeURIComponent(arg);
  };
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'info':
      return { method: 'GET', path: 'info' };
    case 'notify status':
      return { method: 'GET', path: 'notify' };
    case 'accounts list':
      return { method: 'GET', path: 'accounts' };
    case 'accounts create':
      need('NAME');
      return { method: 'POST', path: 'accounts', body: { name: arg } };
    case 'accounts disable':
    case 'accounts enable':
      return { method: 'POST', path: `accounts/${need('NAME')}/${action}` };
    case 'accounts delete':
      return { method: 'DELETE', path: `accounts/${need('NAME')}` };
    case 'keys create':
      return { method: 'POST', path: `accounts/${need('ACCOUNT')}/keys` };
    case 'keys rotate':
      return { method: 'POST', path: `keys/${need('ACCESS_KEY_ID')}/rotate` };
    case 'keys delete':
      return { method: 'DELETE', path: `keys/${need('ACCESS_KEY_ID')}` };
    case 'buckets list':
      return { method: 'GET', path: 'buckets' };
    case 'kms list':
      return { method: 'GET', path: 'kms/keys', ...accountQuery(values) };
    case 'kms create':
      if (arg) throw new UsageError(`tusk admin kms create: unexpected '${arg}' (name the key with --id)`);
      return { method: 'POST', path: 'kms/keys', body: { account: values.account, id: values.id, description: values.description } };
    case 'kms describe':
      return { method: 'GET', path: `kms/keys/${need('KEY')}`, ...accountQuery(values) };
    case 'kms enable':
    case 'kms disable':
    case 'kms rotate':
    case 'kms cancel-deletion':
      return { method: 'POST', path: `kms/keys/${need('KEY')}/${action}`, body: { account: values.account } };
    case 'kms schedule-deletion': {
      const days = values.days === undefined ? undefined : Number(values.days);
      if (days !== undefined && !Number.isInteger(days)) throw new UsageError(`--days: expected a whole number of days, got '${values.days}'`);
      return { method: 'POST', path: `kms/keys/${need('KEY')}/schedule-deletion`, body: { account: values.account, pendingWindowDays: days } };
    }
    case 'kms alias': {
      if (values.delete) {
        const name = need('ALIAS');
        return { method: 'DELETE', path: `kms/aliases/${name}`, ...accountQuery(values) };
      }
      const key = extra[0];
      if (!arg || !key || extra.length > 1) throw new UsageError('tusk admin kms alias: give ALIAS and KEY (or ALIAS --delete)');
      return { method: 'PUT', path: `kms/aliases/${encodeURIComponent(arg)}`, body: { account: values.account, keyId: key } };
    }
    case 'buckets usage':
      return { method: 'GET', path: `buckets/${need('BUCKET')}/usage` };
    case 'buckets walrus-import':
      return { method: 'POST', path: `buckets/${need('BUCKET')}/walrus-import` };
    case 'buckets quota': {
      const path = `buckets/${need('BUCKET')}/quota`;
      if (values.clear) return { method: 'DELETE', path };
      if (values['max-bytes'] === undefined && values['max-objects'] === undefined) return { method: 'GET', path };
      const maxObjects = values['max-objects'] === undefined ? undefined : Number(values['max-objects']);
      if (maxObjects !== undefined && !(Number.isSafeInteger(maxObjects) && maxObjects >= 0)) throw new UsageError(`--max-objects: expected a count, got '${values['max-objects']}'`);
      return { method: 'PUT', path, body: { maxBytes: values['max-bytes'] === undefined ? undefined : parseSize(values['max-bytes'], 'max-bytes'), maxObjects } };
    }
  }
  throw new UsageError(`tusk admin: unknown command '${positionals.join(' ')}'`);
}

class UsageError extends Error {}

async function send(endpoint: URL, region: string, creds: Credentials, call: Call, ca?: Buffer): Promise<{ status: number; body: string }> {
  const body = call.body === undefined ? '' : JSON.stringify(call.body);
  const path = `${endpoint.pathname.replace(/\/$/, '')}${ADMIN_API_PREFIX}${call.path}`;
  const headers: Record<string, string> = { host: endpoint.host };
  if (body) headers['content-type'] = 'application/json';
  const payloadHash = (await import('node:crypto')).createHash('sha256').update(body).digest('hex');
  // the path's parts are already percent-encoded; SigV4 signs the path as sent, and the query sorted
  const query = Object.entries(call.query ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${uriEncode(k, false)}=${uriEncode(v, false)}`).join('&');
  new SigV4Signer({ ...creds, region }).sign({ method: call.method, path: uriEncode(decodeURIComponent(path), true), query, headers, payloadHash });
  const request = endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = request(
      { host: endpoint.hostname, port: endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80), method: call.method, path: uriEncode(decodeURIComponent(path), true) + (query ? `?${query}` : ''), headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ca },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        endpoint: { type: 'string' },
        region: { type: 'string' },
        'data-dir': { type: 'string' },
        'ca-bundle': { type: 'string' },
        'max-bytes': { type: 'string' },
        'max-objects': { type: 'string' },
        clear: { type: 'boolean' },
        account: { type: 'string' },
        id: { type: 'string' },
        description: { type: 'string' },
        days: { type: 'string' },
        delete: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`tusk admin: ${(e as Error).message}\n(see tusk admin --help)`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    console.log(ADMIN_USAGE);
    return values.help ? 0 : 2;
  }
  let call: Call;
  try {
    call = adminCall(positionals, values);
  } catch (e) {
    console.error(`${(e as Error).message}\n(see tusk admin --help)`);
    return 2;
  }
  const endpoint = new URL(values.endpoint ?? env.TUSK_ENDPOINT ?? 'http://127.0.0.1:9000');
  const creds = rootCredentials(values['data-dir'] ?? env.TUSK_DATA_DIR, env);
  const ca = values['ca-bundle'] ? readFileSync(values['ca-bundle']) : undefined;
  let answer;
  try {
    answer = await send(endpoint, values.region ?? env.TUSK_REGION ?? 'us-east-1', creds, call, ca);
  } catch (e) {
    console.error(`tusk admin: cannot reach ${endpoint.origin}: ${(e as Error).message}`);
    return 1;
  }
  let shown = answer.body;
  try {
    shown = JSON.stringify(JSON.parse(answer.body), null, 2);
  } catch {
    // not JSON (e.g. a proxy's error page): shown as it came
  }
  if (answer.status >= 200 && answer.status < 300) {
    console.log(shown);
    return 0;
  }
  console.error(`tusk admin: HTTP ${answer.status}\n${shown}`);
  return 1;
}
