// The root secret reaches the log once (issue 8, defect 8): on the start that generates it. Later
// starts say where it is kept; a secret from the environment is never printed, and none is
// generated beside it (issue 30: root-credentials.json kept an unused generated secret).

import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { s3Request } from './helpers/clients.js';
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

  it('never prints a secret given in the environment, nor generates one beside it', async () => {
    const root = randomCredentials();
    const dataDir = `${dirs.path}/env`;
    const server = await startTusk({ dataDir, root });
    let owner: string;
    try {
      expect(server.output()).not.toContain(root.secretAccessKey);
      expect(server.output()).toContain('root secret access key: from TUSK_SECRET_ACCESS_KEY');
      expect((await s3Request(server, { method: 'PUT', bucket: 'kept' })).status).toBe(200);
      owner = /<Owner><ID>([0-9a-f]{64})<\/ID>/.exec((await s3Request(server, { method: 'GET' })).text())![1]!;
    } finally {
      await server.stop();
    }
    // the file keeps the root account's identity only: no key id, no secret
    const file = `${dataDir}/root-credentials.json`;
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8'))).sort()).toEqual(['accountId', 'canonicalId']);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // a start without them generates a key then (printed once), for the same account
    const later = await startTusk({ dataDir, root: 'generated' });
    try {
      expect(later.output()).toContain(`root secret access key: ${later.root.secretAccessKey} (generated`);
      const listed = (await s3Request(later, { method: 'GET' })).text();
      expect(listed).toContain(`<Owner><ID>${owner}</ID>`);
      expect(listed).toContain('<Name>kept</Name>');
    } finally {
      await later.stop();
    }
  });
});
