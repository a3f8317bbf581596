import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TlsSnapshots } from '../../../src/http/tls-snapshots.js';

const root = mkdtempSync(join(tmpdir(), 'tusk-tls-snapshots-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function makeCertificate(name: string): { certFile: string; keyFile: string } {
  const certFile = join(root, `${name}.crt`);
  const keyFile = join(root, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${name}`], {
    stdio: 'ignore',
  });
  return { certFile, keyFile };
}

describe('TLS snapshots', () => {
  it('copies the files as they are at each take, keeps the last two, and refuses files that do not load', async () => {
    const live = { certFile: join(root, 'live.crt'), keyFile: join(root, 'live.key') };
    const first = makeCertificate('first');
    const second = makeCertificate('second');
    const dir = join(root, 'snapshots');
    mkdirSync(dir);
    writeFileSync(join(dir, 'left-over'), 'from an earlier start');
    writeFileSync(live.certFile, readFileSync(first.certFile));
    writeFileSync(live.keyFile, readFileSync(first.keyFile));
    const snapshots = await TlsSnapshots.open(dir, live);
    expect(readdirSync(dir)).toEqual([]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const a = await snapshots.take();
    expect(readFileSync(a.certFile)).toEqual(readFileSync(first.certFile));
    expect(statSync(a.keyFile).mode & 0o777).toBe(0o600);

    writeFileSync(live.keyFile, 'broken');
    await expect(snapshots.take()).rejects.toThrow(/do not load/);
    expect(readdirSync(dir).sort()).toEqual(['cert-1.pem', 'key-1.pem']);
    // what was taken stays as it was, whatever happens to the operator's files
    expect(readFileSync(a.keyFile)).toEqual(readFileSync(first.keyFile));

    writeFileSync(live.certFile, readFileSync(second.certFile));
    writeFileSync(live.keyFile, readFileSync(second.keyFile));
    const b = await snapshots.take();
    const c = await snapshots.take();
    expect(readFileSync(c.certFile)).toEqual(readFileSync(second.certFile));
    expect(readdirSync(dir).sort()).toEqual([b.certFile, c.certFile, b.keyFile, c.keyFile].map((f) => f.slice(dir.length + 1)).sort());

    rmSync(live.keyFile);
    await expect(snapshots.take()).rejects.toThrow(/cannot read the TLS certificate and key: ENOENT/);
  });

  it('refuses files inside the directory it empties', async () => {
    const dir = join(root, 'own');
    mkdirSync(dir);
    const inside = { certFile: join(dir, 'cert.pem'), keyFile: join(root, 'first.key') };
    writeFileSync(inside.certFile, 'the operator keeps it here');
    await expect(TlsSnapshots.open(dir, inside)).rejects.toThrow(/outside/);
    expect(readFileSync(inside.certFile, 'utf8')).toBe('the operator keeps it here');
  });
});
