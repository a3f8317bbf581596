// `tusk admin` as a child process against a test server, signed with its root key (or another).

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './child-process.js';
import type { Credentials, TuskServer } from './server.js';

const run = promisify(execFile);

/** The command's exit code and its JSON answer (stdout), or its stderr when it failed. */
export async function admin(server: TuskServer, args: string[], root: Credentials = server.root): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin', 'tusk.js'), 'admin', ...args, '--endpoint', server.endpoint], {
      env: { ...process.env, TUSK_ACCESS_KEY_ID: root.accessKeyId, TUSK_SECRET_ACCESS_KEY: root.secretAccessKey },
    });
    return { code: 0, json: JSON.parse(stdout), stderr: '' };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, json: undefined, stderr: err.stderr };
  }
}
