// Runs a boto3 scenario script (test/e2e/boto3/*.py) with Debian's python3-boto3 against a test
// server; the script asserts itself and prints one JSON line of results.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './child-process.js';
import type { TuskServer } from './server.js';

/** Debian's interpreter: the `python3` on PATH may be a pyenv shim without python3-boto3. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

export async function runBoto3(
  server: TuskServer,
  script: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  if (!existsSync(DEBIAN_PYTHON)) throw new Error(`${DEBIAN_PYTHON} missing: node scripts/setup.mjs --test installs python3-boto3`);
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) clean[k] = v;
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
    execFile(
      DEBIAN_PYTHON,
      [join(REPO_ROOT, 'test', 'e2e', 'boto3', script)],
      {
        timeout: timeoutMs,
        env: {
          ...clean,
          TUSK_ENDPOINT: server.endpoint,
          TUSK_REGION: server.region,
          AWS_ACCESS_KEY_ID: server.root.accessKeyId,
          AWS_SECRET_ACCESS_KEY: server.root.secretAccessKey,
          AWS_EC2_METADATA_DISABLED: 'true',
          ...env,
        },
      },
      (err, out, errOut) => (err ? reject(new Error(`${script} failed: ${err.message}\n${errOut}\n${out}`)) : resolve({ stdout: out })),
    );
  });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as Record<string, unknown>;
}
