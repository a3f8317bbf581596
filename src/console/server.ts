// The web console's listener: the static files the set-up step builds from console/ into
// dist/console-ui (scripts/setup.mjs), and /config.json telling the page where the S3 endpoint and
// the publisher are. The page is an S3 client: it signs in the browser with the user's keys, so this
// listener holds no credentials and serves nothing but these files.

import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exchange, ResponseHeaders } from '../http/exchange.js';
import { percentDecode } from '../http/query.js';
import { isWildcard, urlHost } from './origins.js';

/** Where the set-up step writes the built console (dist/console-ui, beside dist/console). */
export const CONSOLE_UI_DIR = join(dirname(dirname(fileURLToPath(import.meta.url))), 'console-ui');

export const CONSOLE_CONFIG_PATH = '/config.json';

/** Where the page finds one of Tusk's other listeners; host undefined: the page's own host name (wildcard bind). */
export interface Endpoint {
  scheme: 'http' | 'https';
  host?: string;
  port: number;
}

/** What /config.json tells the page. */
export interface ConsolePageConfig {
  s3: Endpoint;
  publisher?: Endpoint;
  region: string;
}

export function endpointOf(scheme: 'http' | 'https', host: string, port: number): Endpoint {
  return isWildcard(host) ? { scheme, port } : { scheme, host: urlHost(host), port };
}

/** The CSP source of an endpoint: with no host, any host on that port (the page uses its own). */
function cspSource(e: Endpoint): string {
  return `${e.scheme}://${e.host ?? '*'}:${e.port}`;
}

/**
 * Nothing from anywhere but this listener, the S3 endpoint and the publisher: no inline script or
 * style, no frames, no forms posting elsewhere (MDN: Content-Security-Policy).
 */
export function contentSecurityPolicy(config: ConsolePageConfig): string {
  const connect = ["'self'", cspSource(config.s3), ...(config.publisher ? [cspSource(config.publisher)] : [])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    // a video or audio preview streams from a presigned S3 URL (console/src/preview.tsx)
    `media-src 'self' blob: ${cspSource(config.s3)}`,
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** `config` is read at each request: the publisher's port is set once the publisher is up. */
export function consoleHandler(config: ConsolePageConfig, serverHeader: string, root = CONSOLE_UI_DIR): (ex: Exchange) => Promise<void> {
  const answer = (ex: Exchange, status: number, headers: ResponseHeaders, body: Buffer | string) => {
    const all: ResponseHeaders = [
      ['Server', serverHeader],
      ['Content-Security-Policy', contentSecurityPolicy(config)],
      ['X-Content-Type-Options', 'nosniff'],
      ['Referrer-Policy', 'no-referrer'],
      ['Cross-Origin-Opener-Policy', 'same-origin'],
      ...headers,
    ];
    if (ex.head.method === 'HEAD') ex.sendHead(status, all, Buffer.byteLength(body));
    else ex.send(status, all, body);
  };
  const text = (ex: Exchange, status: number, message: string, extra: ResponseHeaders = []) =>
    answer(ex, status, [['Content-Type', 'text/plain; charset=utf-8'], ['Cache-Control', 'no-store'], ...extra], `${message}\n`);
  return async (ex) => {
    const { method, rawPath } = ex.head;
    if (method !== 'GET' && method !== 'HEAD') return text(ex, 405, 'use GET or HEAD', [['Allow', 'GET, HEAD']]);
    if (rawPath === CONSOLE_CONFIG_PATH) {
      return answer(ex, 200, [['Content-Type', 'application/json'], ['Cache-Control', 'no-store']], JSON.stringify(config));
    }
    const path = percentDecode(rawPath === '/' ? '/index.html' : rawPath, false);
    const file = path === undefined || path.includes('\0') || path.split('/').includes('..') ? undefined : join(root, path);
    if (file === undefined || !file.startsWith(root + sep)) return text(ex, 404, 'not found');
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) {
      if (path === '/index.html') return text(ex, 503, 'the console is not built: run `npm run setup` (it builds console/ into dist/console-ui)');
      return text(ex, 404, 'not found');
    }
    const body = await readFile(file).catch(() => undefined);
    // rebuilt while being served
    if (body === undefined) return text(ex, 404, 'not found');
    // Vite names every asset by its content's hash: those never change; the page itself always may
    const cache = path!.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    answer(ex, 200, [['Content-Type', TYPES[extname(file)] ?? 'application/octet-stream'], ['Cache-Control', cache]], body);
  };
}
