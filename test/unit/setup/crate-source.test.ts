// Where the native module's crates come from (scripts/build-native.mjs, README "Other platforms"):
// Debian's packaged registry on a Debian-family system, crates.io elsewhere, and a Cargo.lock
// resolved against the registry in use rather than committed for one Debian release.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyCargoSource, cargoSource, DEBIAN_REGISTRY, debianCargoConfig, lockAgainstDebianRegistry } from '../../../scripts/build-native.mjs';

const ROOT = join(import.meta.dirname, '../../..');
const CARGO_PATH = [process.env.PATH, join(homedir(), '.cargo', 'bin')].join(delimiter);
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tusk-${label}-`));
  made.push(dir);
  return dir;
}

/** The workspace's manifests (all cargo needs to resolve a lock) in a fresh folder. */
function workspaceCopy(): string {
  const root = tempDir('crates');
  for (const manifest of ['Cargo.toml', 'native/Cargo.toml', 'native/rs2/Cargo.toml']) cpSync(join(ROOT, manifest), join(root, manifest));
  return root;
}

/** Version of `name` in a Cargo.lock. */
function lockedVersion(lock: string, name: string): string | undefined {
  return new RegExp(`\\[\\[package\\]\\]\\nname = "${name}"\\nversion = "([^"]+)"`).exec(lock)?.[1];
}

describe('crate source', () => {
  it('is debian on a Debian-family system and crates-io elsewhere, unless TUSK_CARGO_SOURCE says', () => {
    expect(cargoSource({}, true)).toBe('debian');
    expect(cargoSource({}, false)).toBe('crates-io');
    expect(cargoSource({ TUSK_CARGO_SOURCE: 'crates-io' }, true)).toBe('crates-io');
    expect(cargoSource({ TUSK_CARGO_SOURCE: 'debian' }, false)).toBe('debian');
    expect(() => cargoSource({ TUSK_CARGO_SOURCE: 'vendored' }, true)).toThrow(/debian or crates-io/);
  });

  it('debian writes the source replacement and drops a lock made against the other source; crates-io removes both', () => {
    const root = tempDir('source');
    writeFileSync(join(root, 'Cargo.lock'), 'made against crates.io\n');
    expect(applyCargoSource('debian', root, '/srv/registry')).toBe(true);
    const config = readFileSync(join(root, '.cargo', 'config.toml'), 'utf8');
    expect(config).toBe(debianCargoConfig('/srv/registry'));
    expect(config).toContain('replace-with = "debian-packages"');
    expect(config).toContain('directory = "/srv/registry"');
    expect(existsSync(join(root, 'Cargo.lock'))).toBe(false);

    // unchanged: neither file is touched, so the native module is not rebuilt
    writeFileSync(join(root, 'Cargo.lock'), 'made against the registry\n');
    const before = statSync(join(root, '.cargo', 'config.toml')).mtimeMs;
    expect(applyCargoSource('debian', root, '/srv/registry')).toBe(true);
    expect(statSync(join(root, '.cargo', 'config.toml')).mtimeMs).toBe(before);
    expect(readFileSync(join(root, 'Cargo.lock'), 'utf8')).toBe('made against the registry\n');

    expect(applyCargoSource('crates-io', root, '/srv/registry')).toBe(false);
    expect(existsSync(join(root, '.cargo', 'config.toml'))).toBe(false);
    expect(existsSync(join(root, 'Cargo.lock'))).toBe(false);
  });

  it('leaves a .cargo/config.toml it did not write alone', () => {
    const root = tempDir('foreign');
    mkdirSync(join(root, '.cargo'));
    writeFileSync(join(root, '.cargo', 'config.toml'), '[build]\njobs = 1\n');
    writeFileSync(join(root, 'Cargo.lock'), 'theirs\n');
    expect(applyCargoSource('debian', root)).toBe(false);
    expect(applyCargoSource('crates-io', root)).toBe(false);
    expect(readFileSync(join(root, '.cargo', 'config.toml'), 'utf8')).toBe('[build]\njobs = 1\n');
    expect(readFileSync(join(root, 'Cargo.lock'), 'utf8')).toBe('theirs\n');
  });
});

/** The packaged sha1 crate's folder, e.g. sha1-0.10.1 (Debian 12) or sha1-0.10.6 (Debian 13). */
const packagedSha1 = existsSync(DEBIAN_REGISTRY) ? readdirSync(DEBIAN_REGISTRY).find((e) => /^sha1-\d+\.\d+\.\d+$/.test(e)) : undefined;

describe.skipIf(packagedSha1 === undefined)('the lock against the packaged registry', () => {
  // Debian 12 packages sha1 0.10.1, Debian 13 sha1 0.10.6: a lock committed for one release does not
  // build on the other (cargo --offline finds no such version there). The lock follows the registry.
  it('resolves whatever versions the registry holds, here and in a registry with a newer sha1', () => {
    const packaged = packagedSha1!.slice('sha1-'.length);
    const [major, minor, patch] = packaged.split('.').map(Number);
    const newer = `${major}.${minor}.${patch! + 1}`;
    const root = workspaceCopy();
    applyCargoSource('debian', root);
    lockAgainstDebianRegistry(root);
    expect(lockedVersion(readFileSync(join(root, 'Cargo.lock'), 'utf8'), 'sha1')).toBe(packaged);

    // a registry as the next Debian release may have it: sha1 one patch release on, the rest as here
    const registry = tempDir('registry');
    for (const entry of readdirSync(DEBIAN_REGISTRY)) {
      if (entry !== packagedSha1) symlinkSync(join(DEBIAN_REGISTRY, entry), join(registry, entry));
    }
    cpSync(join(DEBIAN_REGISTRY, packagedSha1!), join(registry, `sha1-${newer}`), { recursive: true });
    const manifest = join(registry, `sha1-${newer}`, 'Cargo.toml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(`version = "${packaged}"`, `version = "${newer}"`));

    // the old way, a lock kept from the older registry: cargo cannot use it against the newer one
    const olderLock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
    applyCargoSource('debian', root, registry);
    writeFileSync(join(root, 'Cargo.lock'), olderLock);
    const kept = spawnSync('cargo', ['metadata', '--offline', '--locked', '--format-version', '1'], { cwd: root, env: { ...process.env, PATH: CARGO_PATH }, encoding: 'utf8' });
    expect(kept.status, kept.stderr).not.toBe(0);
    expect(kept.stderr).toMatch(/sha1/);

    lockAgainstDebianRegistry(root);
    expect(lockedVersion(readFileSync(join(root, 'Cargo.lock'), 'utf8'), 'sha1')).toBe(newer);
  });
});
