// A second account with fixed ids (so policies and grants can name it) for access-control tests.

import { randomBytes } from 'node:crypto';
import { randomCredentials, type ExtraAccount } from './server.js';

export interface TestAccount extends ExtraAccount {
  email: string;
  accountId: string;
  canonicalId: string;
}

export function testAccount(displayName: string, accountId: string): TestAccount {
  return {
    displayName,
    email: `${displayName}@example.com`,
    accountId,
    canonicalId: randomBytes(32).toString('hex'),
    ...randomCredentials(displayName.slice(0, 4).toUpperCase()),
  };
}
