#!/usr/bin/env node
// Builds the Rust Node-API module (native/) into native/tusk-native.<platform>.node with
// @napi-rs/cli, only when the binary is missing or older than its sources. Where the crates come
// from is decided here (cargoSource): on a Debian-family system, Debian's packaged crates
// (librust-*-dev, installed first; crates.io is not reachable from the build machines), elsewhere
// crates.io. No Cargo.lock is committed: each source has its own (README "Other platforms").
// Usage: node scripts/build-native.mjs [--force]      (or import { ensureNative })
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const NATIVE_DIR = join(ROOT, 'native');
export const BINARY_NAME = 'tusk-native';

/** Debian packages providing the crates of native/Cargo.toml (and their dependencies). Cargo
 * resolves the whole workspace, so the other members' packages must be installed too: pass the
 * union as `ensureNative({ packages })`. */
export const DEBIAN_CRATE_PACKAGES = [
  // native/ (digests); md-5 is a test reference, but cargo resolves dev-dependencies workspace-wide
  'librust-md-5-dev',
  'librust-sha2-dev',
  'librust-sha1-dev',
  // native/rs2 (RS2 encoding, BLAKE2b-256, parallelism, huge pages; serde-json reads the test vectors)
  'librust-blake2b-simd-dev',
  'librust-rayon-dev',
  'librust-libc-dev',
  'librust-serde-json-dev',
];

/** The suffix `napi build --platform` gives the binary, e.g. `linux-x64-gnu`. */
export function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

export function nativeBinaryPath() {
  return join(NATIVE_DIR, `${BINARY_NAME}.${platformSuffix()}.node`);
}

const log = (msg) => process.stderr.write(`[build-native] ${msg}\n`);

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry.endsWith('.node') || entry === 'target' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function isStale(binary) {
  if (!existsSync(binary)) return true;
  // The whole native/ tree: this crate and any workspace crate it may link.
  const sources = [NATIVE_DIR, join(ROOT, 'Cargo.toml'), join(ROOT, 'Cargo.lock'), join(ROOT, '.cargo')];
  return Math.max(...sources.map(newestMtime)) > statSync(binary).mtimeMs;
}

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
}

function missingDebianPackages(packages) {
  const probe = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\n', ...packages], {
    encoding: 'utf8',
  });
  if (probe.error) return null; // not a Debian system: the cargo source replacement will tell
  const installed = new Set(
    probe.stdout
      .split('\n')
      .filter((line) => line.endsWith(' install ok installed'))
      .map((line) => line.split(' ')[0]),
  );
  return packages.filter((p) => !installed.has(p));
}

/** Installs whichever of the Debian `packages` are missing (apt-get update once if the install fails). */
export function ensureDebianPackages(packages) {
  const missing = missingDebianPackages(packages);
  if (missing === null || missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages; install them with: sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  }
  log(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env }).status === 0;
  if (install()) return;
  log('apt-get install failed; running apt-get update and retrying');
  run('apt-get', ['update'], { env });
  if (!install()) throw new Error(`apt-get install ${missing.join(' ')} failed`);
}

/** PATH with rustup's default bin directory appended, for shells that did not source it. */
export function pathWithCargo() {
  const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin');
  return [process.env.PATH ?? '', cargoBin].join(delimiter);
}

/** Where `librust-*-dev` packages put their crates (the Debian Rust team's layout, also Ubuntu's). */
export const DEBIAN_REGISTRY = '/usr/share/cargo/registry';
const CONFIG_MARK = '# Written by scripts/build-native.mjs';

/** The repository's .cargo/config.toml for the `debian` source (not committed: written and removed here). */
export function debianCargoConfig(registry = DEBIAN_REGISTRY) {
  return `${CONFIG_MARK} because the crate source is \`debian\` (TUSK_CARGO_SOURCE, by
# default on a Debian-family system): cargo takes every crate from Debian's packaged registry
# (librust-*-dev) and never the network. Removed again when the source is crates-io.
[source.crates-io]
replace-with = "debian-packages"

[source.debian-packages]
directory = "${registry}"

[net]
offline = true
`;
}

/**
 * Where cargo takes the crates from: `debian` (the packaged registry, offline) or `crates-io`.
 * TUSK_CARGO_SOURCE when set; else `debian` on a Debian-family system (one with /etc/debian_version:
 * Debian, Ubuntu and their derivatives), whose build machines may have no route to crates.io.
 */
export function cargoSource(env = process.env, debianFamily = existsSync('/etc/debian_version')) {
  const chosen = env.TUSK_CARGO_SOURCE;
  if (chosen === undefined || chosen === '') return debianFamily ? 'debian' : 'crates-io';
  if (chosen === 'debian' || chosen === 'crates-io') return chosen;
  throw new Error(`TUSK_CARGO_SOURCE must be debian or crates-io, not ${chosen}`);
}

/**
 * Makes `root`/.cargo/config.toml select `source`: written for debian, removed for crates-io, a
 * file this script did not write left alone. A change also drops Cargo.lock: the Debian registry
 * gives some crates no checksum where crates.io gives one, and cargo refuses a lock whose
 * checksums changed.
 * @returns whether the Debian registry is in force through this script's file
 */
export function applyCargoSource(source, root = ROOT, registry = DEBIAN_REGISTRY) {
  const config = join(root, '.cargo', 'config.toml');
  const current = existsSync(config) ? readFileSync(config, 'utf8') : undefined;
  if (current !== undefined && !current.startsWith(CONFIG_MARK)) {
    log(`${config} was not written by this script: cargo uses it as it is (crate source ${source} not applied)`);
    return false;
  }
  const wanted = source === 'debian' ? debianCargoConfig(registry) : undefined;
  if (current !== wanted) {
    if (wanted === undefined) {
      rmSync(config);
    } else {
      mkdirSync(dirname(config), { recursive: true });
      writeFileSync(config, wanted);
    }
    rmSync(join(root, 'Cargo.lock'), { force: true });
    log(`crate source: ${source} (${wanted === undefined ? 'removed' : 'wrote'} ${config})`);
  }
  return wanted !== undefined;
}

/**
 * Resolves `root`/Cargo.lock afresh against the packaged registry, which holds the versions this
 * system's librust-*-dev packages installed (Debian 12: sha1 0.10.1, Debian 13: 0.10.6): the lock
 * follows the system, not one Debian release.
 */
export function lockAgainstDebianRegistry(root = ROOT) {
  const res = spawnSync('cargo', ['generate-lockfile', '--offline', '--manifest-path', join(root, 'Cargo.toml')], {
    cwd: root,
    env: { ...process.env, PATH: pathWithCargo() },
    encoding: 'utf8',
  });
  if (res.error) throw new Error(`cargo not found (${res.error.message}): install Rust (rustup, or Debian's cargo package)`);
  if (res.status !== 0) throw new Error(`cargo generate-lockfile against the Debian registry failed:\n${res.stderr}`);
}

function napiBuild() {
  const require = createRequire(import.meta.url);
  const cliPkg = require.resolve('@napi-rs/cli/package.json', { paths: [ROOT] });
  const cli = join(dirname(cliPkg), 'dist', 'cli.js');
  // The napi config lives in a temporary file: package.json carries no `napi` field.
  const configDir = mkdtempSync(join(tmpdir(), 'tusk-napi-'));
  const config = join(configDir, 'napi.json');
  writeFileSync(config, JSON.stringify({ binaryName: BINARY_NAME }));
  try {
    const args = [
      cli, 'build', '--release', '--platform',
      '--manifest-path', join(NATIVE_DIR, 'Cargo.toml'),
      '--package-json-path', join(ROOT, 'package.json'),
      '--config-path', config,
      '--output-dir', NATIVE_DIR,
      '--no-js',
    ];
    const res = run(process.execPath, args, { cwd: ROOT, env: { ...process.env, PATH: pathWithCargo() } });
    if (res.status !== 0) throw new Error(`napi build failed (exit ${res.status ?? res.signal})`);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

/**
 * Makes sure native/tusk-native.<platform>.node exists and is newer than its sources.
 * Fast no-op when it is; otherwise (crate source debian) installs missing Debian crate packages and
 * locks against them, then runs napi build.
 * @param {{ force?: boolean, packages?: string[] }} [options] `packages`: Debian crate packages
 *   to make sure of before building (default DEBIAN_CRATE_PACKAGES)
 * @returns {Promise<string>} the binary's path
 */
export async function ensureNative({ force = false, packages = DEBIAN_CRATE_PACKAGES } = {}) {
  const binary = nativeBinaryPath();
  const source = cargoSource();
  const debianRegistry = applyCargoSource(source);
  if (!force && !isStale(binary)) return binary;
  const started = Date.now();
  log(force ? 'forced rebuild' : `building ${BINARY_NAME} (missing or older than its sources; crates from ${source})`);
  if (source === 'debian') ensureDebianPackages(packages);
  if (debianRegistry) lockAgainstDebianRegistry();
  napiBuild();
  if (!existsSync(binary)) throw new Error(`napi build did not produce ${binary}`);
  const now = new Date();
  utimesSync(binary, now, now); // an unchanged artifact may be copied with its old mtime
  log(`built ${binary} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureNative({ force: process.argv.includes('--force') }).catch((err) => {
    log(err.message);
    process.exit(1);
  });
}
