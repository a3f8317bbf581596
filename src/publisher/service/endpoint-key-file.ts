// The default endpoint key: generated on first start, kept in the data directory so it survives
// restarts (seed interface B: publisher paths start with /<endpoint_key>/).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { assertEndpointKey } from './routes.js';

export const ENDPOINT_KEY_FILE = 'publisher-endpoint-key';

/** The stored key, or a new random one (128 bits, hex) written with mode 0600. */
export function loadOrCreateEndpointKey(dataDir: string): { key: string; generated: boolean } {
  const file = path.join(dataDir, ENDPOINT_KEY_FILE);
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    assertEndpointKey(key);
    return { key, generated: false };
  }
  const key = randomBytes(16).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, generated: true };
}
