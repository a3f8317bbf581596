#!/usr/bin/env node
// The Rust side of `npm test`: cargo fmt --check, cargo clippy with warnings denied, and the
// workspace's cargo tests, in the cargo environment the native build uses (scripts/build-native.mjs).
// Each check's output is printed only when it fails; the run stops at the first failure (exit 1).
// Usage: node scripts/rust-checks.mjs
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cargoSource, DEBIAN_CRATE_PACKAGES, ensureDebianPackages, pathWithCargo } from './build-native.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const env = { ...process.env, PATH: pathWithCargo(), CARGO_TERM_COLOR: 'never' };
const say = (msg) => process.stderr.write(`rust-checks: ${msg}\n`);

/** Runs a command in ROOT with stdout and stderr into one file, in the order written. */
function run(cmd, args) {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-rust-checks-'));
  const file = join(dir, 'output');
  const fd = openSync(file, 'w');
  try {
    const started = Date.now();
    const res = spawnSync(cmd, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    const output = readFileSync(file, 'utf8');
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const failure = res.error ? res.error.message : res.status !== 0 ? `exit ${res.status ?? res.signal}` : null;
    return { output, seconds, failure };
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sums cargo test's per-binary "test result" lines (worded so CI's summary grep cannot take them). */
function testSummary(output) {
  let passed = 0;
  let ignored = 0;
  for (const m of output.matchAll(/^test result: ok\. (\d+) passed; \d+ failed; (\d+) ignored/gm)) {
    passed += Number(m[1]);
    ignored += Number(m[2]);
  }
  return `${passed} Rust tests ok (${ignored} ignored)`;
}

function main() {
  // cargo resolves the whole workspace, dev-dependencies included, before any of these checks;
  // with the Debian source, .cargo/config.toml (written by the native build) also keeps it offline
  if (cargoSource() === 'debian') ensureDebianPackages(DEBIAN_CRATE_PACKAGES);
  const checks = [
    ['cargo fmt', ['fmt', '--all', '--check', '--', '--color', 'never']],
    ['cargo clippy', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings']],
    // Release, as the RS2 vector tests are slow unoptimised, but without the release profile's LTO:
    // thin-LTO linking each of the five test binaries costs ~2 min of CPU on every source change,
    // against ~15 s without it (and ~35 s once for the dependencies, which then cannot be shared
    // with the LTO build of the native module), for the same test run time.
    ['cargo test', ['test', '--workspace', '--release', '--config', 'profile.release.lto="off"']],
  ];
  for (const [name, args] of checks) {
    say(`${name} …`);
    const { output, seconds, failure } = run('cargo', args);
    if (failure) {
      process.stderr.write(output);
      say(`${name} failed (${failure}) after ${seconds} s: cargo ${args.join(' ')}`);
      return 1;
    }
    say(`${name} ok in ${seconds} s${name === 'cargo test' ? `: ${testSummary(output)}` : ''}`);
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  say(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
}
