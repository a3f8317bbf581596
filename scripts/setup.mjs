#!/usr/bin/env node
// Sets up whatever is missing, then exits: npm packages, the Debian crates and the native build,
// the TypeScript build, the web console's build, and (with --test) the command-line S3 clients the end-to-end tests drive.
// Every step is a fast no-op when its output is already up to date. Used by `npm start` and `npm test`.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeSupport } from './node-support.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = new Set(process.argv.slice(2));
const say = (msg) => process.stderr.write(`setup: ${msg}\n`);

function run(cmd, argv, opts = {}) {
  say(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function checkNode() {
  const { verdict, message } = nodeSupport(process.versions.node);
  if (verdict === 'refused') throw new Error(message);
  if (message) say(`note: ${message}`);
}

function ensureNpmPackages() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs) return;
  // `npm install`, not `npm ci`: npm 11's ci rejects this lock file because @napi-rs/cli's lzma
  // dependency (engine node >= 22) lists platform packages the lock omits; install keeps the lock as it is
  run('npm', ['install', '--no-audit', '--no-fund']);
}

function ensureTypeScript() {
  const stamp = join(root, 'dist', '.build-stamp');
  const inputs = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'tsconfig.json')));
  if (!args.has('--force-ts') && existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  writeFileSync(stamp, new Date().toISOString() + '\n');
}

/** The web console (console/, Vite + Preact) into dist/console-ui, served by src/console/server.ts. */
function ensureConsole() {
  const stamp = join(root, 'dist', 'console-ui', '.build-stamp');
  const inputs = Math.max(newestMtime(join(root, 'console')), statSync(join(root, 'package-lock.json')).mtimeMs);
  if (!args.has('--force-ts') && existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  run(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'console/vite.config.ts']);
  writeFileSync(stamp, new Date().toISOString() + '\n');
}

// the clients the e2e tests drive: aws-cli, boto3 and s3cmd (also with SigV2), rclone; chromium runs the browser
// tests; prometheus's promtool checks the metrics exposition; redis-server is a bucket notification target
const TEST_PACKAGES = ['awscli', 'python3-boto3', 's3cmd', 'rclone', 'chromium', 'prometheus', 'redis-server', 'rabbitmq-server', 'nats-server', 'mosquitto', 'postgresql'];

try {
  checkNode();
  ensureNpmPackages();
  // imported after the npm step: it resolves @napi-rs/cli from node_modules
  const { ensureDebianPackages, ensureNative } = await import('./build-native.mjs');
  await ensureNative();
  ensureTypeScript();
  ensureConsole();
  if (args.has('--test')) ensureDebianPackages(TEST_PACKAGES);
} catch (e) {
  say(`failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}

