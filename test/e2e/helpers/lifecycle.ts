// Per-file server lifecycle: one Tusk process for the file, always disposed (also on failure).

import { afterAll, beforeAll } from 'vitest';
import { startTusk, type TuskOptions, type TuskServer } from './server.js';

export interface TuskContext {
  readonly server: TuskServer;
}

export function useTusk(options: TuskOptions = {}): TuskContext {
  let current: TuskServer | undefined;
  beforeAll(async () => {
    current = await startTusk(options);
  });
  afterAll(async () => {
    await current?.dispose();
  });
  return {
    get server(): TuskServer {
      if (!current) throw new Error('tusk server not started');
      return current;
    },
  };
}
