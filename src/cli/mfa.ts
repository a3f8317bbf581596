// `tusk mfa`: provisions TOTP devices for MFA delete (s3.md §2.14). The secret is printed once, at
// creation; the server picks up the device file's change without a restart.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadAccounts } from '../identity/accounts.js';
import { MfaDevices } from '../identity/mfa-devices.js';

export const MFA_USAGE = `Usage: tusk mfa <create|list|delete> [options]

  create [--account root|CANONICAL_ID]   add a TOTP device (default: the root account); prints its
                                         serial and secret (shown once) and an otpauth:// URI
  list                                   serials and owners of the devices (no secrets)
  delete --serial SERIAL                 remove a device

  --data-dir DIR   data directory (TUSK_DATA_DIR, default ./data)`;

export async function runMfaCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      account: { type: 'string' },
      serial: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command] = positionals;
  if (values.help || !command) {
    console.log(MFA_USAGE);
    return values.help ? 0 : 2;
  }
  const dataDir = resolve(values['data-dir'] ?? process.env.TUSK_DATA_DIR ?? './data');
  const devices = new MfaDevices(dataDir);
  switch (command) {
    case 'create': {
      const { accounts } = loadAccounts(dataDir, { identityOnly: true });
      const wanted = values.account ?? 'root';
      const account = wanted === 'root' ? accounts.root.account : accounts.byCanonicalId(wanted);
      if (!account) {
        console.error(`tusk mfa: no account '${wanted}' (a canonical id, or root)`);
        return 2;
      }
      const device = devices.add(account.canonicalId, account.accountId);
      console.log(`serial: ${device.serial}`);
      console.log(`secret: ${device.secret}   (base32; shown only now: add it to an authenticator app)`);
      console.log(`uri:    otpauth://totp/Tusk:${encodeURIComponent(account.displayName)}?secret=${device.secret}&issuer=Tusk&algorithm=SHA1&digits=6&period=30`);
      console.log(`use:    x-amz-mfa: "${device.serial} <6-digit code>"`);
      return 0;
    }
    case 'list':
      for (const d of devices.list()) console.log(`${d.serial}\t${d.account}\t${new Date(d.created).toISOString()}`);
      return 0;
    case 'delete':
      if (!values.serial) {
        console.error('tusk mfa delete: --serial is required');
        return 2;
      }
      if (!devices.remove(values.serial)) {
        console.error(`tusk mfa: no device ${values.serial}`);
        return 1;
      }
      return 0;
    default:
      console.error(`tusk mfa: unknown command '${command}'\n\n${MFA_USAGE}`);
      return 2;
  }
}
