// The origins a browser names in `Origin` when it loads the console from its listener: S3 answers
// CORS for exactly these (s3/cors.ts consoleCorsHeaders), so the console, an S3 client in the
// browser, can call the S3 endpoint without the endpoint being open to every site.

import { networkInterfaces } from 'node:os';
import type { HostPort } from '../config/values.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** `host` as a URL writes it: IPv6 in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** scheme://host[:port], the port left out where it is the scheme's default (as browsers send Origin). */
export function originOf(scheme: 'http' | 'https', host: string, port: number): string {
  const defaultPort = scheme === 'https' ? 443 : 80;
  return `${scheme}://${urlHost(host)}${port === defaultPort ? '' : `:${port}`}`;
}

/**
 * The console's origins: those configured (--console-origin), else the names its listener answers
 * to: for a loopback address 127.0.0.1, localhost and ::1; for a wildcard address those and every
 * address of this host's interfaces (a DNS name needs --console-origin); else its own address.
 */
export function consoleOrigins(listen: HostPort, port: number, secure: boolean, configured: readonly string[]): string[] {
  if (configured.length > 0) return [...configured];
  const scheme = secure ? 'https' : 'http';
  const loopback = ['127.0.0.1', 'localhost', '::1'];
  let hosts: string[];
  if (LOOPBACK.test(listen.host)) hosts = loopback;
  else if (WILDCARD.has(listen.host)) {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.split('%')[0]!));
    hosts = [...new Set([...loopback, ...addresses])];
  } else hosts = [listen.host];
  return hosts.map((h) => originOf(scheme, h, port));
}

/** Whether `host` is a wildcard bind: the page then reaches the other listeners by its own host name. */
export function isWildcard(host: string): boolean {
  return WILDCARD.has(host);
}
