// SSE-KMS with the built-in key service (issue 37): boto3 end to end (test/e2e/boto3/sse_kms.py:
// put/get/head/copy/multipart, disabled → unreadable → enabled, rotation, pending deletion, AWS's
// errors), `tusk admin kms`, the master key kept out of the data directory, and a restart that
// still opens every object.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAccount } from './helpers/accounts.js';
import { admin } from './helpers/admin-cli.js';
import { runBoto3 } from './helpers/boto3.js';
import { s3Request } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { startTusk, type TuskServer } from './helpers/server.js';
import { expectS3Error } from './helpers/xml.js';

const other = testAccount('other', '333344445555');
const keyDir = mkdtempSync(join(tmpdir(), 'tusk-kms-master-'));
const masterKeyFile = join(keyDir, 'master.key');
let server: TuskServer;
/** the data directory of a restarted server, which the first one's dispose no longer removes */
let restartedDir: string | undefined;
const start = (dataDir?: string) => startTusk({ dataDir, extraAccounts: [other], extraArgs: ['--kms-master-key-file', masterKeyFile] });

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server?.dispose();
  if (restartedDir) rmSync(restartedDir, { recursive: true, force: true });
  rmSync(keyDir, { recursive: true, force: true });
});

describe('SSE-KMS', () => {
  it('boto3: put/get/head/copy/multipart by id, ARN, alias and default key; disabled, rotated, pending deletion; AWS errors', async () => {
    const out = await runBoto3(server, 'sse_kms.py', { BUCKET: bucketName('kms'), OTHER_KEY: other.accessKeyId, OTHER_SECRET: other.secretAccessKey });
    expect(out.ok).toBe(true);
  }, 120_000);

  it('tusk admin kms: a key with a given id, an alias, disable, and clear errors; objects open after a restart', async () => {
    const created = await admin(server, ['kms', 'create', '--id', 'testkey-1', '--description', 'for s3-tests']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.key).toMatchObject({ KeyId: 'testkey-1', KeyState: 'Enabled', KeyManager: 'CUSTOMER', Description: 'for s3-tests' });
    const arn = created.json.key.Arn as string;
    expect(arn).toMatch(/^arn:aws:kms:us-east-1:\d{12}:key\/testkey-1$/);
    expect((await admin(server, ['kms', 'create', '--id', 'testkey-1'])).stderr).toMatch(/HTTP 409/);
    expect((await admin(server, ['kms', 'alias', 'alias/cli', 'testkey-1'])).code).toBe(0);
    expect((await admin(server, ['kms', 'describe', 'alias/cli'])).json.key.Aliases).toEqual(['alias/cli']);

    const bucket = bucketName('kms-cli');
    expect((await s3Request(server, { method: 'PUT', bucket })).status).toBe(200);
    const put = await s3Request(server, { method: 'PUT', bucket, key: 'o', body: 'secret words', headers: { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'alias/cli' } });
    expect(put.status).toBe(200);
    expect(put.headers['x-amz-server-side-encryption-aws-kms-key-id']).toBe(arn);
    // the key store holds no key material in clear, and the master key is where it was told to be
    expect(readFileSync(masterKeyFile)).toHaveLength(32);
    expect(readFileSync(join(server.dataDir, 'kms-keys.json'), 'utf8')).not.toContain('secret');

    expect((await admin(server, ['kms', 'disable', 'testkey-1'])).json.key.KeyState).toBe('Disabled');
    const refused = await s3Request(server, { method: 'GET', bucket, key: 'o' });
    expect(expectS3Error(refused, 400, 'KMS.DisabledException').message).toBe(`${arn} is disabled.`);
    expect((await admin(server, ['kms', 'enable', 'testkey-1'])).json.key.KeyState).toBe('Enabled');

    // a restart reads the keys and the master key again
    restartedDir = server.dataDir;
    await server.stop();
    server = await start(restartedDir);
    const got = await s3Request(server, { method: 'GET', bucket, key: 'o' });
    expect(got.status).toBe(200);
    expect(got.text()).toBe('secret words');
  }, 120_000);
});
