import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, SERVE_USAGE } from '../../src/config/config.js';
import { envName, markdownTable, parseArgsOptions, withFlagsTable } from '../../src/config/flag.js';
import { SERVE_FLAGS, SERVE_SECTIONS } from '../../src/config/flags.js';

const README = new URL('../../README.md', import.meta.url);

describe('one declaration per tusk serve setting (src/config/flags*.ts)', () => {
  it('is what the README table says: node scripts/flags-table.mjs --write regenerates it', () => {
    const readme = readFileSync(README, 'utf8');
    expect(withFlagsTable(readme, markdownTable([...SERVE_SECTIONS]))).toBe(readme);
  });

  it('fails the README check when a declaration changes', () => {
    const readme = readFileSync(README, 'utf8');
    const changed = { flags: { ...SERVE_SECTIONS[0].flags, region: { ...SERVE_FLAGS.region, default: 'eu-west-1' } } };
    expect(withFlagsTable(readme, markdownTable([changed, ...SERVE_SECTIONS.slice(1)]))).not.toBe(readme);
  });

  it('lists every setting in exactly one section, and --help names each with its variable', () => {
    const inSections = SERVE_SECTIONS.flatMap((s) => Object.keys(s.flags));
    expect(inSections.sort()).toEqual(Object.keys(SERVE_FLAGS).sort());
    for (const [name, f] of Object.entries(SERVE_FLAGS)) {
      if (f.only !== 'env') expect(SERVE_USAGE, name).toContain(`--${name}`);
      expect(SERVE_USAGE, name).toContain(envName(name));
    }
  });

  it('derives the parser: switches are booleans, lists repeat, environment-only settings are no flags', () => {
    const options = parseArgsOptions(SERVE_FLAGS);
    expect(options['accept-any-region']).toEqual({ type: 'boolean' });
    expect(options.domain).toEqual({ type: 'string', multiple: true });
    expect(options.listen).toEqual({ type: 'string' });
    expect(options['access-key-id']).toBeUndefined();
    expect(loadConfig(['--domain', 'a.test', '--domain', 'b.test,c.test'], {}).domains).toEqual(['a.test', 'b.test', 'c.test']);
    expect(() => loadConfig(['--kms-master-key', 'abc='], {})).toThrow(/Unknown option '--kms-master-key'/);
    expect(() => loadConfig(['--access-key-id', 'AK'], {})).toThrow(/Unknown option '--access-key-id'/);
  });

  describe('config file keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tusk-flags-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('are the flags, but neither --config nor an environment-only secret', () => {
      const file = join(dir, 'tusk.json');
      for (const key of ['config', 'kms_master_key', 'secret-access-key']) {
        writeFileSync(file, JSON.stringify({ [key]: 'x' }));
        expect(() => loadConfig(['--config', file], {}), key).toThrow(`unknown setting '${key}'`);
      }
      writeFileSync(file, JSON.stringify({ 'jwt-verify-upload': true, 'jwt_decode_secret': 's', 'notify-queue-limit': 7 }));
      const c = loadConfig(['--config', file], {});
      expect([c.publisher.jwt?.verifyUpload, c.notify.queueLimit]).toEqual([true, 7]);
    });
  });
});
