// Accounts and their keys (s3.md §2.11): the root account (credentials generated on first start
// and kept with mode 0600 in the data directory, or taken from the environment) plus the accounts
// in <data-dir>/accounts.json, which the admin API changes at run time (written crash-safely, so
// that changes apply at once and survive a restart).

import { createHash, randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../base/durable-file.js';
import { GenerationWatch } from '../base/shared-generation.js';

export type Capability = 'create_bucket' | 'delete_bucket' | 'write' | 'read';
const ALL_CAPABILITIES: Capability[] = ['create_bucket', 'delete_bucket', 'write', 'read'];

export interface Account {
  /** 12 digits (x-amz-expected-bucket-owner) */
  accountId: string;
  /** 64 lower-case hex: the `<Owner><ID>` */
  canonicalId: string;
  displayName: string;
  /** optional e-mail, for ACL grants by `emailAddress` (issue 12) */
  email?: string;
}

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  account: Account;
  capabilities: ReadonlySet<Capability>;
  /** optional allow-list of buckets */
  buckets?: ReadonlySet<string>;
}

export interface Accounts {
  root: AccessKey;
  lookup(accessKeyId: string): AccessKey | undefined;
  byCanonicalId(id: string): Account | undefined;
  /** the account with this e-mail (case-insensitive), for ACL grants by e-mail (issue 12) */
  byEmail?(email: string): Account | undefined;
}

export const ROOT_FILE = 'root-credentials.json';
export const ACCOUNTS_FILE = 'accounts.json';

export function rootCredentialsPath(dataDir: string): string {
  return join(dataDir, ROOT_FILE);
}

interface RootFile {
  accountId: string;
  canonicalId: string;
  /** absent while the environment gives them (TUSK_ACCESS_KEY_ID, TUSK_SECRET_ACCESS_KEY) */
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** The root key from the environment, each part optional. */
export interface RootOverride {
  accessKeyId?: string;
  secretAccessKey?: string;
  /** generate no key the file lacks (tools that need the accounts, not the root key) */
  identityOnly?: boolean;
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function generateAccessKeyId(): string {
  let s = 'TUSK';
  for (let i = 0; i < 16; i++) s += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return s;
}

function accountIdFrom(canonicalId: string): string {
  return (BigInt(`0x${canonicalId.slice(0, 15)}`) % 10n ** 12n).toString().padStart(12, '0');
}

/**
 * Reads the root credentials file (mode 0600), creating it on first start with the root account's
 * identity, and adding a key id and a secret when neither the file nor the environment has them: a
 * secret is generated only to be used, never kept beside one from the environment.
 */
function loadRootFile(dataDir: string, override: RootOverride): { file: RootFile; generatedSecret: boolean } {
  const path = join(dataDir, ROOT_FILE);
  const stored = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RootFile) : undefined;
  let file = stored ?? newRootIdentity();
  const generate = !override.identityOnly;
  const accessKeyId = generate && override.accessKeyId === undefined && file.accessKeyId === undefined ? generateAccessKeyId() : undefined;
  const secretAccessKey = generate && override.secretAccessKey === undefined && file.secretAccessKey === undefined ? randomBytes(30).toString('base64url') : undefined;
  if (accessKeyId !== undefined) file = { ...file, accessKeyId };
  if (secretAccessKey !== undefined) file = { ...file, secretAccessKey };
  if (file !== stored) writeFileDurably(path, JSON.stringify(file, null, 2) + '\n');
  return { file, generatedSecret: secretAccessKey !== undefined };
}

function newRootIdentity(): RootFile {
  const canonicalId = randomBytes(32).toString('hex');
  return { accountId: accountIdFrom(canonicalId), canonicalId };
}

interface AccountsFileEntry {
  displayName: string;
  /** a disabled account's keys are refused (InvalidAccessKeyId) */
  disabled?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  accountId?: string;
  canonicalId?: string;
  email?: string;
  capabilities?: Capability[];
  buckets?: string[];
}

function parseAccountsFile(path: string): AccountsFileEntry[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { accounts?: AccountsFileEntry[] };
  if (!parsed || !Array.isArray(parsed.accounts)) throw new Error(`${path}: expected {"accounts": [...]}`);
  for (const a of parsed.accounts) {
    if (!a.displayName || !a.accessKeyId || !a.secretAccessKey) {
      throw new Error(`${path}: every account needs displayName, accessKeyId and secretAccessKey`);
    }
    for (const c of a.capabilities ?? []) {
      if (!ALL_CAPABILITIES.includes(c)) throw new Error(`${path}: unknown capability '${c}'`);
    }
  }
  return parsed.accounts;
}

export interface LoadedAccounts {
  accounts: AccountRegistry;
  /** true when the root secret was generated by this start */
  generated: boolean;
}

/**
 * `generation`: a counter in shared memory that every thread's registry over this data directory
 * bumps after a change, so that the others read accounts.json again before their next lookup.
 */
export function loadAccounts(dataDir: string, override: RootOverride, generation?: Int32Array): LoadedAccounts {
  const { file, generatedSecret } = loadRootFile(dataDir, override);
  const rootAccount: Account = { accountId: file.accountId, canonicalId: file.canonicalId, displayName: 'root' };
  // '' only with identityOnly: no request can sign with an empty secret
  const root: AccessKey = {
    accessKeyId: override.accessKeyId ?? file.accessKeyId ?? '',
    secretAccessKey: override.secretAccessKey ?? file.secretAccessKey ?? '',
    account: rootAccount,
    capabilities: new Set(ALL_CAPABILITIES),
  };
  const path = join(dataDir, ACCOUNTS_FILE);
  const entries = existsSync(path) ? parseAccountsFile(path) : [];
  return { accounts: new AccountRegistry(root, entries, path, generation), generated: generatedSecret };
}

/** What the admin API shows of an account: never a secret. */
export interface AccountSummary {
  displayName: string;
  accountId: string;
  canonicalId: string;
  disabled: boolean;
  accessKeyIds: string[];
}

export class AccountError extends Error {
  constructor(
    readonly kind: 'not-found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

const DISPLAY_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/** The accounts and keys in force; admin changes rewrite accounts.json before they take effect. */
export class AccountRegistry implements Accounts {
  private byKey = new Map<string, AccessKey>();
  private byId = new Map<string, Account>();
  private readonly changes: GenerationWatch;

  constructor(
    readonly root: AccessKey,
    private entries: AccountsFileEntry[],
    private readonly path: string,
    generation?: Int32Array,
  ) {
    this.changes = new GenerationWatch(generation);
    this.rebuild();
  }

  lookup(accessKeyId: string): AccessKey | undefined {
    this.followOtherThreads();
    return this.byKey.get(accessKeyId);
  }

  byCanonicalId(id: string): Account | undefined {
    this.followOtherThreads();
    return this.byId.get(id);
  }

  byEmail(email: string): Account | undefined {
    this.followOtherThreads();
    const wanted = email.toLowerCase();
    return [...this.byId.values()].find((a) => a.email?.toLowerCase() === wanted);
  }

  list(): AccountSummary[] {
    this.followOtherThreads();
    const out = new Map<string, AccountSummary>();
    for (const e of this.entries) {
      const account = this.accountOf(e);
      const summary = out.get(e.displayName) ?? {
        displayName: e.displayName,
        accountId: account.accountId,
        canonicalId: account.canonicalId,
        disabled: e.disabled === true,
        accessKeyIds: [],
      };
      summary.accessKeyIds.push(e.accessKeyId);
      out.set(e.displayName, summary);
    }
    return [...out.values()];
  }

  /** A new account with its first key; the secret is returned once. */
  createAccount(displayName: string): { account: AccountSummary; secretAccessKey: string } {
    if (!DISPLAY_NAME.test(displayName) || displayName === 'root') {
      throw new AccountError('invalid', `account name '${displayName}': 1-64 letters, digits and ._@+-, not 'root'`);
    }
    if (this.entries.some((e) => e.displayName === displayName)) throw new AccountError('conflict', `account '${displayName}' exists`);
    const canonicalId = randomBytes(32).toString('hex');
    const entry = newKeyEntry({ displayName, canonicalId, accountId: accountIdFrom(canonicalId) });
    this.commit([...this.entries, entry]);
    return { account: this.summary(displayName), secretAccessKey: entry.secretAccessKey };
  }

  setDisabled(displayName: string, disabled: boolean): AccountSummary {
    this.entriesOf(displayName);
    this.commit(this.entries.map((e) => (e.displayName === displayName ? { ...e, disabled: disabled || undefined } : e)));
    return this.summary(displayName);
  }

  /** Removes the account and all its keys; `ownsBuckets` refuses while it still owns buckets. */
  deleteAccount(displayName: string, ownedBuckets: (canonicalId: string) => number): void {
    const [first] = this.entriesOf(displayName);
    const owned = ownedBuckets(this.accountOf(first!).canonicalId);
    if (owned > 0) throw new AccountError('conflict', `account '${displayName}' still owns ${owned} bucket(s)`);
    this.commit(this.entries.filter((e) => e.displayName !== displayName));
  }

  createKey(displayName: string): { accessKeyId: string; secretAccessKey: string } {
    const [first] = this.entriesOf(displayName);
    const account = this.accountOf(first!);
    const entry = newKeyEntry({ ...first!, canonicalId: account.canonicalId, accountId: account.accountId });
    this.commit([...this.entries, entry]);
    return { accessKeyId: entry.accessKeyId, secretAccessKey: entry.secretAccessKey };
  }

  /** Replaces a key by a new one of the same account (the old one stops working at once). */
  rotateKey(accessKeyId: string): { accessKeyId: string; secretAccessKey: string; displayName: string } {
    const old = this.entryOf(accessKeyId);
    const account = this.accountOf(old);
    const entry = newKeyEntry({ ...old, canonicalId: account.canonicalId, accountId: account.accountId });
    this.commit(this.entries.map((e) => (e.accessKeyId === accessKeyId ? entry : e)));
    return { accessKeyId: entry.accessKeyId, secretAccessKey: entry.secretAccessKey, displayName: old.displayName };
  }

  deleteKey(accessKeyId: string): void {
    const entry = this.entryOf(accessKeyId);
    if (this.entries.filter((e) => e.displayName === entry.displayName).length === 1) {
      throw new AccountError('conflict', `${accessKeyId} is the last key of '${entry.displayName}': delete the account instead`);
    }
    this.commit(this.entries.filter((e) => e.accessKeyId !== accessKeyId));
  }

  private summary(displayName: string): AccountSummary {
    return this.list().find((a) => a.displayName === displayName)!;
  }

  private entriesOf(displayName: string): AccountsFileEntry[] {
    const found = this.entries.filter((e) => e.displayName === displayName);
    if (found.length === 0) throw new AccountError('not-found', `no account '${displayName}'`);
    return found;
  }

  private entryOf(accessKeyId: string): AccountsFileEntry {
    const found = this.entries.find((e) => e.accessKeyId === accessKeyId);
    if (!found) throw new AccountError('not-found', `no access key ${accessKeyId}${accessKeyId === this.root.accessKeyId ? ' (the root key is not managed here)' : ''}`);
    return found;
  }

  /** Persists first, then applies: a change the file does not hold never takes effect. */
  private commit(next: AccountsFileEntry[]): void {
    writeFileDurably(this.path, JSON.stringify({ accounts: next }, null, 2) + '\n');
    this.entries = next;
    this.rebuild();
    this.changes.bump();
  }

  /** Another thread changed the accounts (the file holds it before the counter moves): read them again. */
  private followOtherThreads(): void {
    if (!this.changes.moved()) return;
    this.entries = existsSync(this.path) ? parseAccountsFile(this.path) : [];
    this.rebuild();
  }

  private accountOf(entry: AccountsFileEntry): Account {
    const canonicalId = entry.canonicalId ?? createHash('sha256').update(`tusk-account:${entry.displayName}`).digest('hex');
    return (
      this.byId.get(canonicalId) ?? {
        accountId: entry.accountId ?? accountIdFrom(canonicalId),
        canonicalId,
        displayName: entry.displayName,
        ...(entry.email ? { email: entry.email } : {}),
      }
    );
  }

  private rebuild(): void {
    const byKey = new Map<string, AccessKey>([[this.root.accessKeyId, this.root]]);
    const byId = new Map<string, Account>([[this.root.account.canonicalId, this.root.account]]);
    this.byId = byId;
    for (const entry of this.entries) {
      const account = this.accountOf(entry);
      byId.set(account.canonicalId, account);
      if (byKey.has(entry.accessKeyId)) throw new Error(`${this.path}: duplicate access key ${entry.accessKeyId}`);
      // a disabled account still owns its buckets (byCanonicalId) but none of its keys sign
      if (entry.disabled) continue;
      byKey.set(entry.accessKeyId, {
        accessKeyId: entry.accessKeyId,
        secretAccessKey: entry.secretAccessKey,
        account,
        capabilities: new Set(entry.capabilities ?? ALL_CAPABILITIES),
        buckets: entry.buckets ? new Set(entry.buckets) : undefined,
      });
    }
    this.byKey = byKey;
  }
}

function newKeyEntry(base: Omit<AccountsFileEntry, 'accessKeyId' | 'secretAccessKey'>): AccountsFileEntry {
  return { ...base, accessKeyId: generateAccessKeyId(), secretAccessKey: randomBytes(30).toString('base64url') };
}
