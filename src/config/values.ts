// Parsers of setting values (addresses, durations, sizes, switches, ratios): each turns a flag's text
// into its value or throws an error naming the setting.

import { resolve } from 'node:path';
import type { TlsFiles } from '../http/listener.js';
import type { Durability, PublisherConfig } from './config.js';

export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(value: string, what: string): HostPort {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${what}: expected host:port, got '${value}'`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

export function parseDurability(value: string): Durability {
  if (value !== 'strict' && value !== 'relaxed') throw new Error(`durability: expected strict or relaxed, got '${value}'`);
  return value;
}

export function parseBool(value: string, what: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new Error(`${what}: expected true or false, got '${value}'`);
}

export function list(value: string | string[] | undefined): string[] {
  const items = Array.isArray(value) ? value : value ? [value] : [];
  return items.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Customer keys cross the network in clear over HTTP: allowed only where the network is this host. */
export function parseSseCOverHttp(allowed: boolean, listen: HostPort): boolean {
  if (allowed && !LOOPBACK.test(listen.host)) {
    throw new Error('allow-sse-c-over-http: only for a loopback listener (127.0.0.1, ::1); use --tls-cert/--tls-key otherwise');
  }
  return allowed;
}

export function parseTls(certFile: string | undefined, keyFile: string | undefined): TlsFiles | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) throw new Error('tls: give both --tls-cert and --tls-key');
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

export function parseOnOff(value: string, what: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  return parseBool(value, what);
}

export function parseJwt(secret: string | undefined, algorithm: string, expiring: string | undefined, verifyUpload: boolean): PublisherConfig['jwt'] {
  if (!secret) return undefined;
  if (algorithm !== 'HS256' && algorithm !== 'HS384' && algorithm !== 'HS512') throw new Error(`jwt-algorithm: expected HS256, HS384 or HS512, got '${algorithm}'`);
  return { secret, algorithm, expiringSec: expiring === undefined ? 0 : parsePositive(expiring, 'jwt-expiring-sec'), verifyUpload };
}

export function parseOptionalDuration(value: string, what: string): number | undefined {
  return value === 'off' ? undefined : parseDuration(value, what);
}

export function parseRatio(value: string, what: string): number {
  const r = /^(0(\.\d+)?|1(\.0+)?)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(r >= 0 && r <= 1)) throw new Error(`${what}: expected a number from 0 to 1, got '${value}'`);
  return r;
}

/** Web origins as browsers send them in Origin: scheme://host[:port], nothing after. */
export function parseOrigins(values: string[]): string[] {
  for (const v of values) {
    let origin: string | undefined;
    try {
      origin = new URL(v).origin;
    } catch {
      // reported below
    }
    if (origin !== v || !/^https?:/.test(v)) throw new Error(`console-origin: expected an origin like https://console.example.com:9001, got '${v}'`);
  }
  return values;
}

/** A listener that 'off' disables. */
export function parseOptionalListen(value: string, what: string): HostPort | undefined {
  return value === 'off' ? undefined : parseHostPort(value, what);
}

export function parsePositive(value: string, what: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n))) throw new Error(`${what}: expected a positive integer, got '${value}'`);
  return n;
}

/** At most 64: every store with reuse_resources=true lists the Blob objects of each sub-wallet, and start-up reads each one's balance. */
export function parseSubWallets(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = parsePositive(value, 'sub-wallets');
  if (n > 64) throw new Error(`sub-wallets: expected 1 to 64, got '${value}'`);
  return n;
}

export function parseShards(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  // n ≤ 3 has no recovery symbols (walrus.md §2); shard indices are u16
  if (!(n >= 4 && n <= 65535)) throw new Error(`n-shards: expected an integer from 4 to 65535, got '${value}'`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * DURATION_UNITS[m[2]!]! : NaN;
  if (!(ms >= 1)) throw new Error(`${what}: expected a duration like 90s, 2h or 1d, got '${value}'`);
  return Math.round(ms);
}

const SIZE_UNITS: Record<string, number> = { '': 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, KB: 1e3, MB: 1e6, GB: 1e9 };

export function parseSize(value: string, what: string): number {
  const m = /^(\d+)\s*(B|KiB|MiB|GiB|KB|MB|GB)?$/.exec(value.trim());
  const bytes = m ? Number(m[1]) * SIZE_UNITS[m[2] ?? '']! : NaN;
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes)) throw new Error(`${what}: expected a size like 10MiB, got '${value}'`);
  return bytes;
}

/** A duration where 0 means none. */
export function parseDurationOrZero(value: string, what: string): number {
  return value.trim() === '0' ? 0 : parseDuration(value, what);
}

/** A size where 0 means none. */
export function parseSizeOrZero(value: string, what: string): number {
  return value.trim() === '0' ? 0 : parseSize(value, what);
}
