// Picks the HTTP engine of this process (--http-engine, TUSK_HTTP_ENGINE): uWebSockets.js where a
// binary of it loads for the running Node and C library (uws.ts), else Node's own node:http
// (node-engine.ts). The rest of the server listens through here and sees only Exchanges.

import * as nodeEngine from './node-engine.js';
import * as uwsEngine from './uws.js';
import { uwsAvailability } from './uws-module.js';
import { freePort, portTaken, type HttpServer, type ListenOptions, type RequestHandler, type TlsFiles } from './listener.js';

export const HTTP_ENGINE_MODES = ['auto', 'uws', 'node'] as const;
export type HttpEngineMode = (typeof HTTP_ENGINE_MODES)[number];
export type HttpEngineName = Exclude<HttpEngineMode, 'auto'>;

export interface HttpEngine {
  readonly name: HttpEngineName;
  /** threads of this process can listen on one port (SO_REUSEPORT) */
  readonly sharesPorts: boolean;
  listen(host: string, port: number, handler: RequestHandler, tls?: TlsFiles, options?: ListenOptions): Promise<HttpServer>;
  /** whether the engine loads `files` as a certificate chain and its key */
  tlsFilesLoad(files: TlsFiles): boolean;
}

const ENGINES: Record<HttpEngineName, HttpEngine> = {
  uws: { name: 'uws', sharesPorts: true, listen: uwsEngine.listen, tlsFilesLoad: uwsEngine.tlsFilesLoad },
  node: { name: 'node', sharesPorts: nodeEngine.NODE_SHARES_PORTS, listen: nodeEngine.listen, tlsFilesLoad: nodeEngine.tlsFilesLoad },
};

export interface EngineChoice {
  engine: HttpEngine;
  /** why, for the start-up log: "http engine: node (uWS: …)" */
  why: string;
}

let chosen: EngineChoice | undefined;

export function parseHttpEngineMode(value: string, what = 'http-engine'): HttpEngineMode {
  if (!(HTTP_ENGINE_MODES as readonly string[]).includes(value)) throw new Error(`${what}: expected auto, uws or node, got '${value}'`);
  return value as HttpEngineMode;
}

/**
 * The engine for `mode`, from now on the one this thread listens with. `uws` throws when no uWS
 * binary loads; `auto` takes uWS when one does, node:http otherwise.
 */
export function chooseHttpEngine(mode: HttpEngineMode): EngineChoice {
  if (mode === 'node') return (chosen = { engine: ENGINES.node, why: 'asked for' });
  const uws = uwsAvailability();
  if ('module' in uws) return (chosen = { engine: ENGINES.uws, why: `${uws.build}${mode === 'uws' ? ', asked for' : ''}` });
  if (mode === 'uws') throw new Error(`http-engine uws: uWebSockets.js cannot load (${uws.reason}); use --http-engine auto or node`);
  return (chosen = { engine: ENGINES.node, why: `uWS: ${uws.reason}` });
}

/** The engine chosen in this thread, or the one TUSK_HTTP_ENGINE (default auto) names. */
export function httpEngine(): HttpEngine {
  return (chosen ?? chooseHttpEngine(parseHttpEngineMode(process.env.TUSK_HTTP_ENGINE || 'auto', 'TUSK_HTTP_ENGINE'))).engine;
}

/** Starts a listener on this thread's engine (listener.ts ListenOptions; `sharedPort` needs `sharesPorts`). */
export function listen(host: string, port: number, handler: RequestHandler, tls?: TlsFiles, options?: ListenOptions): Promise<HttpServer> {
  return httpEngine().listen(host, port, handler, tls, options);
}

export function tlsFilesLoad(files: TlsFiles): boolean {
  return httpEngine().tlsFilesLoad(files);
}

/**
 * The first listener of a port that this process's threads will share (SO_REUSEPORT), on a port
 * nobody holds: sharing would not keep another process out, so a port already bound by anyone
 * refuses the start here. A port the kernel picked for a 0 bind cannot be shared, so for port 0
 * a free one is picked first (and picked again if it was taken meanwhile). Its requests count in
 * slot 0 of `inFlightCounts`.
 */
export async function listenForThreads(
  host: string,
  port: number,
  handler: RequestHandler,
  inFlightCounts: Int32Array,
  tls?: TlsFiles,
  options: Omit<ListenOptions, 'sharedPort' | 'inFlight'> = {},
): Promise<HttpServer> {
  for (let attempt = 0; ; attempt++) {
    const chosenPort = port === 0 ? await freePort(host) : port;
    const taken = await portTaken(host, chosenPort);
    if (taken && port === 0 && attempt < 5) continue;
    if (taken) throw new Error(`cannot listen on ${host}:${chosenPort}: ${taken}`);
    try {
      return await listen(host, chosenPort, handler, tls, { ...options, sharedPort: true, inFlight: { counts: inFlightCounts, slot: 0 } });
    } catch (e) {
      if (port !== 0 || attempt >= 5) throw e;
    }
  }
}
