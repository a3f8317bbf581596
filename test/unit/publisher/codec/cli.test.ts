// `tusk blob-id`, `tusk encode` and `tusk decode` on real files in a temp directory.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { runBlobIdCli, runDecodeCli, runEncodeCli } from '../../../../src/publisher/cli/index.js';
import { randomBytes } from './vector-input.js';

let dir: string;
let out: string[];
let err: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tusk-rs2-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function capture(): void {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
}

describe('tusk blob-id', () => {
  it('prints the published Walrus id of the regression-test input (walrus.md §13)', async () => {
    const file = join(dir, 'literal.txt');
    await writeFile(file, 'walrus blob id v1 regression test');
    capture();
    expect(await runBlobIdCli([file, '--n-shards', '10'])).toBe(0);
    expect(out).toEqual(['RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY']);
  });

  it('defaults to 1000 shards and prints details with --json', async () => {
    const file = join(dir, 'empty');
    await writeFile(file, '');
    capture();
    expect(await runBlobIdCli([file, '--json'])).toBe(0);
    const info = JSON.parse(out.join('\n')) as { blobId: string; nShards: number };
    expect(info.nShards).toBe(1000);
    expect(Buffer.from(info.blobId, 'base64url').toString('hex')).toBe('dc63d02f71d936716137f17b97901af97d553ad00ac08b20f73b9693c47cd6fe');
  });

  it('exits 2 on bad usage and 1 on a missing file', async () => {
    capture();
    expect(await runBlobIdCli([])).toBe(2);
    expect(await runBlobIdCli(['x', '--n-shards', '3'])).toBe(2);
    expect(await runBlobIdCli(['x', '--bogus'])).toBe(2);
    expect(await runBlobIdCli([join(dir, 'missing')])).toBe(1);
    expect(err.join('\n')).toMatch(/ENOENT/);
  });
});

describe('BLAKE2b paths', () => {
  // The AVX-512 eight-lane kernel (default where the CPU has it) and blake2b_simd's hash_many
  // (TUSK_RS2_NO_AVX512=1, the path of CPUs without AVX-512) must give the same ids: one-block and
  // multi-block leaves (symbols from 2 to 1,000 bytes), odd Merkle levels, n = 1000.
  it('TUSK_RS2_NO_AVX512=1 gives the same blob ids as the default path', async () => {
    const tusk = fileURLToPath(new URL('../../../../bin/tusk.js', import.meta.url));
    const cases = [
      { n: 10, size: 3_000 },
      { n: 13, size: 30_000 },
      { n: 137, size: 600_000 },
      { n: 1000, size: 1 << 20 },
    ];
    for (const { n, size } of cases) {
      const file = join(dir, `paths-${n}`);
      await writeFile(file, randomBytes(n, size));
      const run = (env: NodeJS.ProcessEnv) => promisify(execFile)(process.execPath, [tusk, 'blob-id', file, '--n-shards', String(n)], { env });
      const plain = await run({ ...process.env, TUSK_RS2_NO_AVX512: '1' });
      const fast = await run({ ...process.env, TUSK_RS2_NO_AVX512: '0' });
      expect(plain.stdout.trim()).toHaveLength(43);
      expect(plain.stdout, `n=${n}, ${size} bytes`).toBe(fast.stdout);
    }
  });
});

describe('tusk encode / tusk decode', () => {
  it('writes metadata and every sliver, and rebuilds the file with slivers missing or damaged', async () => {
    const n = 10;
    const input = join(dir, 'blob.bin');
    const data = randomBytes(42, 200_000);
    await writeFile(input, data);
    const slivers = join(dir, 'slivers');
    capture();
    expect(await runEncodeCli([input, '--out', slivers, '--n-shards', String(n)])).toBe(0);
    const blobId = out[0]!;
    expect(blobId).toHaveLength(43);
    const files = await readdir(slivers);
    expect(files).toHaveLength(2 * n + 2);
    expect(JSON.parse(await readFile(join(slivers, 'blob.json'), 'utf8'))).toMatchObject({ blobId, nShards: n, unencodedLength: data.length });

    // n = 10 needs 4 primary slivers: drop 5 and damage one more.
    for (const p of [0, 1, 2, 5, 8]) await rm(join(slivers, `pair-${p}.primary.bcs`));
    const damaged = await readFile(join(slivers, 'pair-3.primary.bcs'));
    damaged[10] ^= 0xff;
    await writeFile(join(slivers, 'pair-3.primary.bcs'), damaged);
    const rebuilt = join(dir, 'rebuilt.bin');
    expect(await runDecodeCli([slivers, '--out', rebuilt])).toBe(0);
    expect(err.join('\n')).toMatch(/skipping primary sliver 3: the sliver does not match its hash/);
    expect((await readFile(rebuilt)).equals(data)).toBe(true);

    await rm(join(slivers, 'pair-4.primary.bcs'));
    expect(await runDecodeCli([slivers, '--out', join(dir, 'never.bin')])).toBe(1);
    expect(err.join('\n')).toMatch(/not enough primary slivers to decode: 3 of 4/);
  });

  it('exits 2 without --out', async () => {
    capture();
    expect(await runEncodeCli([join(dir, 'blob.bin')])).toBe(2);
    expect(await runDecodeCli([join(dir, 'slivers')])).toBe(2);
  });
});
