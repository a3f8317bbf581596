// MFA devices: provisioning writes the file, codes are single-use per device, also across a
// restart (the last accepted step is kept on disk), and bound to the device's account.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MfaDevices } from '../../src/identity/mfa-devices.js';
import { base32Decode, totp } from '../../src/identity/totp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-mfa-'));
  dirs.push(d);
  return d;
}

describe('MfaDevices', () => {
  it('accepts a code once, also after a restart, and only for its own account', () => {
    const dir = tempDir();
    const admin = new MfaDevices(dir);
    const server = new MfaDevices(dir);
    expect(server.hasDevice('acct')).toBe(false);
    const device = admin.add('acct', '123456789012');
    expect(device.serial).toMatch(/^arn:aws:iam::123456789012:mfa\/tusk-[0-9a-f]{12}$/);
    // the running server sees the new file without a restart
    expect(server.hasDevice('acct')).toBe(true);
    const now = 1_700_000_010_000;
    const code = totp(base32Decode(device.secret), now);
    expect(server.verify('other', `${device.serial} ${code}`, now)).toBe('invalid');
    expect(server.verify('acct', `${device.serial} ${code}`, now)).toBe('valid');
    expect(server.verify('acct', `${device.serial} ${code}`, now)).toBe('invalid');
    expect(new MfaDevices(dir).verify('acct', `${device.serial} ${code}`, now)).toBe('invalid');
    const next = totp(base32Decode(device.secret), now + 30_000);
    expect(new MfaDevices(dir).verify('acct', `${device.serial} ${next}`, now + 30_000)).toBe('valid');
    expect(server.verify('acct', `${device.serial}  ${next}`, now)).toBe('invalid');
    expect(server.verify('acct', 'garbage', now)).toBe('invalid');
    expect(admin.remove(device.serial)).toBe(true);
    expect(server.hasDevice('acct')).toBe(false);
  });
});
