// The root secret reaches the log once (issue 8, defect 8): on the start that generates it. Later
// starts say where it is kept; a secret from the environment is never printed.

import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDirFixture } from './helpers/fixtures.js';
import { randomCredentials, startTusk } from './helpers/server.js';

const dirs = makeTempDirFixture();
afterAll(() => dirs.remove());

describe('the root secret in the start-up log', () => {
  it('is printed on the first start only, then the credentials file is named', async () => {
    const dataDir = `${dirs.path}/generated`;
    const first = await startTusk({ dataDir, root: 'generated' });
    const secret = first.root.secretAccessKey;
    expect(secret.length).toBeGreaterThan(20);
    expect(first.output()).toContain(secret);
    await first.stop();

    const second = await startTusk({ dataDir, root: 'generated' });
    try {
      expect(second.root.secretAccessKey).toBe(secret);
      expect(second.output()).not.toContain(secret);
      expect(second.output()).toContain(`root secret access key: in ${dataDir}/root-credentials.json`);
      expect(second.output()).toContain(`root access key id: ${second.root.accessKeyId}`);
    } finally {
      await second.stop();
    }
  });

  it('never prints a secret given in the environment', async () => {
    const root = randomCredentials();
    const server = await startTusk({ dataDir: `${dirs.path}/env`, root });
    try {
      expect(server.output()).not.toContain(root.secretAccessKey);
      expect(server.output()).toContain('root secret access key: from TUSK_SECRET_ACCESS_KEY');
    } finally {
      await server.stop();
    }
  });
});
