// Loading uWebSockets.js: a native binary for the running Node and libc, never the package's silent
// pure-JS fallback; the types of the parts of its API http/uws.ts uses.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cStdoutToStderr } from '../native/process.js';
import { MAX_HEAD_BYTES } from './listener.js';

// uWS reads this once when its binary loads; S3 allows 8 KiB of headers and uWS's default of 4 KiB
// (request line included) is too small (s3.md §1.7, §6).
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_HEAD_BYTES);

export type UwsResponse = {
  pause(): void;
  resume(): void;
  writeStatus(status: string): UwsResponse;
  writeHeader(key: string, value: string): UwsResponse;
  end(body?: Uint8Array | string, closeConnection?: boolean): UwsResponse;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): UwsResponse;
  tryEnd(chunk: Uint8Array, totalSize: number): [boolean, boolean];
  write(chunk: Uint8Array | string): boolean;
  close(): UwsResponse;
  getWriteOffset(): number;
  getRemoteAddress(): ArrayBuffer;
  onWritable(handler: (offset: number) => boolean): UwsResponse;
  onAborted(handler: () => void): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsResponse;
  cork(cb: () => void): UwsResponse;
};
export type UwsRequest = {
  getUrl(): string;
  getCaseSensitiveMethod(): string;
  getQuery(): string | undefined;
  forEach(cb: (key: string, value: string) => void): void;
};
export type UwsApp = {
  any(pattern: string, handler: (res: UwsResponse, req: UwsRequest) => void): UwsApp;
  listen(host: string, port: number, options: number, cb: (socket: unknown) => void): UwsApp;
  addServerName(hostname: string, options: UwsTlsOptions): UwsApp;
  removeServerName(hostname: string): UwsApp;
  missingServerName(cb: (hostname: string) => void): UwsApp;
  domain(hostname: string): UwsApp;
  close(): void;
};
export type UwsTlsOptions = { cert_file_name: string; key_file_name: string; ssl_ciphers: string };
export type UwsModule = {
  App(): UwsApp;
  /** throws when the certificate or key cannot be loaded */
  SSLApp(options: UwsTlsOptions): UwsApp;
  us_listen_socket_close(socket: unknown): void;
  us_socket_local_port(socket: unknown): number;
};

/**
 * The uWS builds Tusk depends on, each with binaries for some Node ABIs (process.versions.modules):
 * v20.30 for Node 16, 18 and 20; v20.57 (a republication of uWS's own release) for Node 20 to 25,
 * built against glibc 2.38. Both packages' entry points fall back to something else (a pure-JS
 * imitation, or an error) when no binary loads: the binaries are loaded here directly instead.
 */
const UWS_BUILDS = [
  { version: 'v20.30', pkg: '@trufflesuite/uws-js-unofficial', dir: 'binaries', abis: ['93', '108', '115'] },
  { version: 'v20.57', pkg: '@btc-vision/uwebsockets.js', dir: '.', abis: ['115', '127', '137', '141'] },
] as const;

/** The uWS binary that loads in this process, or why none does. */
export type UwsAvailability = { module: UwsModule; build: string } | { reason: string };

let availability: UwsAvailability | undefined;

function nodeName(): string {
  return `Node ${process.versions.node.split('.')[0]} ABI ${process.versions.modules}`;
}

/** The C library this process runs on, as uWS's binaries need it named. */
function libcName(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ? `glibc ${header.glibcVersionRuntime}` : 'a C library other than glibc';
}

/** Why `binary` did not load, in a few words (the loader's own message is long). */
function loadFailure(build: string, e: Error): string {
  const glibc = /GLIBC_([\d.]+)' not found/.exec(e.message);
  if (glibc) return `the ${build} binary for ${nodeName()} needs glibc ${glibc[1]}, this system has ${libcName()}`;
  return `the ${build} binary for ${nodeName()} does not load: ${e.message.split('\n')[0]}`;
}

/** The binary of each build for the running Node, in the order they are tried, or why a build has none. */
export function uwsBinaries(): Array<{ version: string; binary: string } | { reason: string }> {
  const require = createRequire(import.meta.url);
  const abi = process.versions.modules;
  return UWS_BUILDS.filter((build) => (build.abis as readonly string[]).includes(abi)).map((build) => {
    // the package's directory, found as Node would find the package (its exports hide package.json)
    const dir = require.resolve.paths(build.pkg)?.map((p) => join(p, build.pkg)).find((d) => existsSync(join(d, 'package.json')));
    if (!dir) return { reason: `${build.pkg} is not installed` };
    const binary = join(dir, build.dir, `uws_${process.platform}_${process.arch}_${abi}.node`);
    if (!existsSync(binary)) return { reason: `no ${build.version} binary for ${process.platform}-${process.arch}` };
    return { version: build.version, binary };
  });
}

/** Finds and loads the uWS binary for the running Node, once per thread. */
export function uwsAvailability(): UwsAvailability {
  if (availability) return availability;
  const require = createRequire(import.meta.url);
  const reasons: string[] = [];
  // Both builds print to the C library's stdout and std::cout ("finding <name>", "Browsed to SNI:
  // <name>" from their domain(), for each TLS server name), which write to fd 1, the JSON log's:
  // both are pointed at stderr before a binary loads (native/src/stdio_binding.rs).
  cStdoutToStderr();
  for (const build of uwsBinaries()) {
    if ('reason' in build) {
      reasons.push(build.reason);
      continue;
    }
    try {
      const mod = require(build.binary) as UwsModule;
      if (typeof mod.App !== 'function' || !String(mod.App).includes('[native code]')) {
        reasons.push(`the ${build.version} binary is not native code`);
        continue;
      }
      return (availability = { module: mod, build: `uWS ${build.version}` });
    } catch (e) {
      reasons.push(loadFailure(build.version, e as Error));
    }
  }
  if (reasons.length === 0) reasons.push(`no binary for ${nodeName()}`);
  return (availability = { reason: reasons.join('; ') });
}

/** Loads the uWS native binary; throws (so the server refuses to start) if it cannot. */
export function loadUws(): UwsModule {
  const a = uwsAvailability();
  if ('reason' in a) throw new Error(`uWebSockets.js cannot load: ${a.reason}. Refusing to start on a pure-JS fallback.`);
  return a.module;
}
