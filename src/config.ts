// Server settings: embedded defaults, overridden by TUSK_* environment variables, overridden by flags.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

export type Durability = 'strict' | 'relaxed';

export interface HostPort {
  host: string;
  port: number;
}

export interface Config {
  listen: HostPort;
  dataDir: string;
  region: string;
  /** base domains for virtual-host style (s3.md §1.1) */
  domains: string[];
  durability: Durability;
  /** s3.md §0.4 accept_any_region */
  acceptAnyRegion: boolean;
  clockSkewMs: number;
  /** root credentials from the environment; generated and stored in the data directory otherwise */
  rootAccessKeyId?: string;
  rootSecretAccessKey?: string;
  serverHeader: string;
  maxBucketsPerAccount: number;
}

export const VERSION = '1.0.0';
export const SERVER_HEADER = `Tusk/${VERSION}`;

export function parseHostPort(value: string, what: string): HostPort {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${what}: expected host:port, got '${value}'`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

function parseDurability(value: string): Durability {
  if (value !== 'strict' && value !== 'relaxed') throw new Error(`durability: expected strict or relaxed, got '${value}'`);
  return value;
}

function parseBool(value: string, what: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new Error(`${what}: expected true or false, got '${value}'`);
}

function list(value: string | string[] | undefined): string[] {
  const items = Array.isArray(value) ? value : value ? [value] : [];
  return items.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

export const SERVE_USAGE = `Usage: tusk serve [options]

  --listen HOST:PORT       S3 listener (TUSK_LISTEN, default 127.0.0.1:9000)
  --data-dir DIR           data directory (TUSK_DATA_DIR, default ./data)
  --region REGION          region of the credential scope (TUSK_REGION, default us-east-1)
  --domain D[,D...]        base domains for virtual-host style (TUSK_DOMAIN, default localhost)
  --durability MODE        strict (fdatasync before acknowledging, default) or relaxed (TUSK_DURABILITY)
  --accept-any-region      do not check the credential scope's region (TUSK_ACCEPT_ANY_REGION)

  TUSK_ACCESS_KEY_ID / TUSK_SECRET_ACCESS_KEY set the root credentials instead of generated ones.
  More accounts: <data-dir>/accounts.json (see README).`;

/** Settings from flags (`argv`, after the subcommand) over environment over defaults. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const { values } = parseArgs({
    args: argv,
    options: {
      listen: { type: 'string' },
      'data-dir': { type: 'string' },
      region: { type: 'string' },
      domain: { type: 'string', multiple: true },
      durability: { type: 'string' },
      'accept-any-region': { type: 'boolean' },
    },
    strict: true,
  });
  const domains = list(values.domain ?? env.TUSK_DOMAIN);
  return {
    listen: parseHostPort(values.listen ?? env.TUSK_LISTEN ?? '127.0.0.1:9000', 'listen'),
    dataDir: resolve(values['data-dir'] ?? env.TUSK_DATA_DIR ?? './data'),
    region: values.region ?? env.TUSK_REGION ?? 'us-east-1',
    domains: domains.length ? domains : ['localhost'],
    durability: parseDurability(values.durability ?? env.TUSK_DURABILITY ?? 'strict'),
    acceptAnyRegion:
      values['accept-any-region'] ??
      (env.TUSK_ACCEPT_ANY_REGION ? parseBool(env.TUSK_ACCEPT_ANY_REGION, 'TUSK_ACCEPT_ANY_REGION') : false),
    clockSkewMs: 15 * 60 * 1000,
    rootAccessKeyId: env.TUSK_ACCESS_KEY_ID || undefined,
    rootSecretAccessKey: env.TUSK_SECRET_ACCESS_KEY || undefined,
    serverHeader: SERVER_HEADER,
    maxBucketsPerAccount: 10000,
  };
}
