// The skeleton of the S3 crash tests: rounds of concurrent workers against a strict-durability
// server killed with SIGKILL at a random moment, each restart verified on the same data dir.

import { expect } from 'vitest';
import { s3Request } from './clients.js';
import type { Credentials } from './server.js';
import { startTusk, type TuskServer } from './server.js';

export interface CrashRounds {
  dataDir: string;
  root: Credentials;
  bucket: string;
  rounds: number;
  workers: number;
  rand: () => number;
  /** the kill comes after minMs + rand() * spanMs */
  minMs: number;
  spanMs: number;
  /** more `tusk serve` flags for every start */
  extraArgs?: string[];
  /** checks what a restarted server shows (after every round but the first, and at the end) */
  verify(server: TuskServer, round: number): Promise<void>;
  /** one worker's loop; it stops when `stopped()` turns true or its connection dies */
  work(server: TuskServer, round: number, worker: number, stopped: () => boolean): Promise<void>;
}

export async function runCrashRounds(c: CrashRounds): Promise<void> {
  let server: TuskServer | undefined;
  try {
    for (let round = 0; round < c.rounds; round += 1) {
      server = await startTusk({ dataDir: c.dataDir, root: c.root, durability: 'strict', extraArgs: c.extraArgs });
      if (round === 0) expect((await s3Request(server, { method: 'PUT', bucket: c.bucket })).status).toBe(200);
      else await c.verify(server, round);
      const s = server;
      let stop = false;
      const running = Array.from({ length: c.workers }, (_, w) => c.work(s, round, w, () => stop));
      await new Promise((r) => setTimeout(r, c.minMs + Math.floor(c.rand() * c.spanMs)));
      await s.kill9();
      stop = true;
      await Promise.allSettled(running);
    }
    server = await startTusk({ dataDir: c.dataDir, root: c.root, durability: 'strict', extraArgs: c.extraArgs });
    await c.verify(server, c.rounds);
  } finally {
    await server?.dispose();
  }
}
