// MFA devices of accounts (s3.md §2.14): <data-dir>/mfa-devices.json, written crash-safely by
// `tusk mfa` and re-read by the server when the file changes. Each accepted code's step is kept so
// that a code works once per device (RFC 6238 §5.2), even within its ±1-step window.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../base/durable-file.js';
import { base32Decode, base32Encode, matchingStep, newSecret } from './totp.js';

export const MFA_DEVICES_FILE = 'mfa-devices.json';
/** The server's record of each device's last accepted step, so that a restart does not re-open a used code. */
export const MFA_USED_FILE = 'mfa-used-steps.json';

export interface MfaDeviceRecord {
  /** what clients send before the code in `x-amz-mfa` */
  serial: string;
  /** canonical id of the owning account */
  account: string;
  /** base32 TOTP secret */
  secret: string;
  /** ms since the epoch */
  created: number;
}

interface DevicesFile {
  devices: MfaDeviceRecord[];
}

export type MfaVerdict = 'valid' | 'invalid';

function readDevices(file: string): MfaDeviceRecord[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as DevicesFile;
    return Array.isArray(parsed.devices) ? parsed.devices : [];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

function readUsedSteps(file: string): Record<string, number> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

export class MfaDevices {
  private readonly file: string;
  private readonly usedFile: string;
  private devices: MfaDeviceRecord[] = [];
  private loadedStamp = '';
  /** serial → the last step whose code was accepted */
  private readonly lastStep: Map<string, number>;

  constructor(dataDir: string) {
    this.file = join(dataDir, MFA_DEVICES_FILE);
    this.usedFile = join(dataDir, MFA_USED_FILE);
    this.lastStep = new Map(Object.entries(readUsedSteps(this.usedFile)));
  }

  /** The devices as on disk now (re-read when the file's size or mtime changed). */
  list(): readonly MfaDeviceRecord[] {
    let stamp = '';
    try {
      const st = fs.statSync(this.file);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      stamp = 'none';
    }
    if (stamp !== this.loadedStamp) {
      this.devices = stamp === 'none' ? [] : readDevices(this.file);
      this.loadedStamp = stamp;
    }
    return this.devices;
  }

  hasDevice(account: string): boolean {
    return this.list().some((d) => d.account === account);
  }

  /** Checks `x-amz-mfa` ("serial code") for `account` at `now`; a valid code is used up. */
  verify(account: string, header: string, now = Date.now()): MfaVerdict {
    const m = /^(\S+) (\d{6})$/.exec(header.trim());
    if (!m) return 'invalid';
    const device = this.list().find((d) => d.serial === m[1] && d.account === account);
    if (!device) return 'invalid';
    const step = matchingStep(base32Decode(device.secret), m[2]!, now);
    if (step === undefined || step <= (this.lastStep.get(device.serial) ?? -Infinity)) return 'invalid';
    this.lastStep.set(device.serial, step);
    // durable before the code is honoured: a crash right after must not make it usable again
    writeFileDurably(this.usedFile, `${JSON.stringify(Object.fromEntries(this.lastStep))}\n`);
    return 'valid';
  }

  /** Adds a device for `account` and writes the file before returning (admin command). */
  add(account: string, accountId: string): MfaDeviceRecord {
    const device: MfaDeviceRecord = {
      serial: `arn:aws:iam::${accountId}:mfa/tusk-${randomBytes(6).toString('hex')}`,
      account,
      secret: base32Encode(newSecret()),
      created: Date.now(),
    };
    this.write([...this.list(), device]);
    return device;
  }

  remove(serial: string): boolean {
    const kept = this.list().filter((d) => d.serial !== serial);
    if (kept.length === this.list().length) return false;
    this.write(kept);
    return true;
  }

  private write(devices: MfaDeviceRecord[]): void {
    writeFileDurably(this.file, `${JSON.stringify({ devices } satisfies DevicesFile, null, 2)}\n`);
    this.loadedStamp = '';
  }
}
