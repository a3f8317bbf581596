// The built-in key service: customer keys (ids, ARNs, aliases, states, versions) in
// <data-dir>/kms-keys.json, their material sealed (AES-256-GCM) under the KMS master key
// (master-key.ts). The admin API changes them; every change is written crash-safely before it
// applies, and other threads read the file again when the shared counter moves (as accounts do).
// Each account also has a default key, alias/aws/s3 (AWS's managed key for S3): derived from the
// master key, never stored, always enabled, as AWS's managed keys cannot be disabled or deleted.

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../base/durable-file.js';
import { GenerationWatch } from '../base/shared-generation.js';
import { canonicalContext, KmsError, type DataKey, type EncryptionContext, type KeyMetadata, type KeyService, type KeyState } from './key-service.js';
import { loadKmsMasterKey, type KmsMasterKey, type KmsMasterKeySource } from './master-key.js';

export const KMS_KEYS_FILE = 'kms-keys.json';
export const DEFAULT_KEY_ALIAS = 'alias/aws/s3';
const KEY_BYTES = 32;
const IV = 12;
const TAG = 16;
const BLOB_FORMAT = 1;
/** format ‖ key version (u32 BE) ‖ iv ‖ sealed data key ‖ tag */
const BLOB_BYTES = 1 + 4 + IV + KEY_BYTES + TAG;
const CUSTOM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
// AWS KMS CreateAlias: alias/ then letters, digits, /_-; alias/aws/ is reserved for AWS's keys
const ALIAS = /^alias\/[A-Za-z0-9/_-]{1,250}$/;
const KEY_ARN = /^arn:aws:kms:([^:]*):(\d{12}):(key|alias)\/(.+)$/;
/** AWS KMS ScheduleKeyDeletion: a waiting period of 7 to 30 days, 30 by default */
export const DELETION_WINDOW_DAYS = { min: 7, max: 30, default: 30 };
const DAY_MS = 86_400_000;

interface StoredKey {
  id: string;
  accountId: string;
  description: string;
  state: KeyState;
  createdAt: string;
  deletionDate?: string;
  /** the material of each version (base64 of iv ‖ sealed ‖ tag under the master key), oldest first */
  versions: Array<{ createdAt: string; material: string }>;
}

interface KeyFile {
  /** HMAC-like check of the master key: a different master key is refused at start-up */
  masterKeyCheck: string;
  keys: StoredKey[];
  aliases: Array<{ name: string; accountId: string; keyId: string }>;
}

/** A key found by name: a stored key, or an account's default key. */
type Found = { kind: 'stored'; key: StoredKey } | { kind: 'default'; accountId: string };

export interface KeyRegistryOptions {
  dataDir: string;
  region: string;
  master: Omit<KmsMasterKeySource, 'dataDir'>;
  /** shared counter bumped after a change (threads over one data directory) */
  generation?: Int32Array;
  /** the clock (tests move it past a deletion date) */
  now?: () => number;
}

export class KeyRegistry implements KeyService {
  private file: KeyFile;
  private materials = new Map<string, Buffer[]>();
  private readonly changes: GenerationWatch;
  private readonly now: () => number;

  private constructor(
    private readonly path: string,
    private readonly master: Buffer,
    private readonly region: string,
    file: KeyFile,
    o: KeyRegistryOptions,
  ) {
    this.changes = new GenerationWatch(o.generation);
    this.now = o.now ?? Date.now;
    this.file = file;
    this.materials = this.unseal(file);
  }

  /** Opens the key store (creating it, and the master key, at first start); throws on a wrong master key. */
  static open(o: KeyRegistryOptions): { registry: KeyRegistry; master: KmsMasterKey } {
    const path = join(o.dataDir, KMS_KEYS_FILE);
    const exists = existsSync(path);
    const master = loadKmsMasterKey({ ...o.master, dataDir: o.dataDir }, exists);
    const check = masterKeyCheck(master.key);
    let file: KeyFile;
    if (exists) {
      file = JSON.parse(readFileSync(path, 'utf8')) as KeyFile;
      if (file.masterKeyCheck !== check) throw new Error(`${path}: its keys are sealed under another KMS master key than ${master.from}`);
    } else {
      file = { masterKeyCheck: check, keys: [], aliases: [] };
      writeFileDurably(path, JSON.stringify(file, null, 2) + '\n');
    }
    return { registry: new KeyRegistry(path, master.key, o.region, file, o), master };
  }

  // -- the admin API's operations --------------------------------------------------------------

  create(accountId: string, options: { id?: string; description?: string } = {}): KeyMetadata {
    this.followOtherThreads();
    const id = options.id ?? randomUUID();
    if (!CUSTOM_ID.test(id)) throw new KmsError('Invalid', `key id '${id}': 1-128 letters, digits, _ and -`);
    if (this.file.keys.some((k) => k.id === id)) throw new KmsError('Conflict', `a key with id '${id}' exists`);
    const at = new Date(this.now()).toISOString();
    const key: StoredKey = { id, accountId, description: options.description ?? '', state: 'Enabled', createdAt: at, versions: [{ createdAt: at, material: this.sealMaterial(id, 0, randomBytes(KEY_BYTES)) }] };
    this.commit({ ...this.file, keys: [...this.file.keys, key] });
    return this.metadataOf({ kind: 'stored', key });
  }

  /** Every stored key, or an account's. */
  list(accountId?: string): KeyMetadata[] {
    this.followOtherThreads();
    return this.live().filter((k) => accountId === undefined || k.accountId === accountId).map((key) => this.metadataOf({ kind: 'stored', key }));
  }

  /** `ref` in `accountId` (its aliases); a bare id or an ARN names a key of any account. */
  describe(ref: string, accountId: string): KeyMetadata {
    this.followOtherThreads();
    return this.metadataOf(this.find(ref, accountId, true));
  }

  setEnabled(ref: string, accountId: string, enabled: boolean): KeyMetadata {
    const key = this.customerKey(ref, accountId, enabled ? 'enabled' : 'disabled');
    if (key.state === 'PendingDeletion') throw new KmsError('PendingDeletion', `${this.arnOf(key.accountId, key.id)} is pending deletion: cancel the deletion first`);
    return this.update(key, { state: enabled ? 'Enabled' : 'Disabled' });
  }

  /** A new key version: new data keys use it, the older ones still decrypt what they encrypted. */
  rotate(ref: string, accountId: string): KeyMetadata {
    const key = this.customerKey(ref, accountId, 'rotated');
    if (key.state !== 'Enabled') throw new KmsError(key.state === 'Disabled' ? 'Disabled' : 'PendingDeletion', `${this.arnOf(key.accountId, key.id)} is ${key.state === 'Disabled' ? 'disabled' : 'pending deletion'}`);
    const at = new Date(this.now()).toISOString();
    const material = this.sealMaterial(key.id, key.versions.length, randomBytes(KEY_BYTES));
    return this.update(key, { versions: [...key.versions, { createdAt: at, material }] });
  }

  scheduleDeletion(ref: string, accountId: string, days = DELETION_WINDOW_DAYS.default): KeyMetadata {
    if (!Number.isInteger(days) || days < DELETION_WINDOW_DAYS.min || days > DELETION_WINDOW_DAYS.max) {
      throw new KmsError('Invalid', `the pending window is ${DELETION_WINDOW_DAYS.min} to ${DELETION_WINDOW_DAYS.max} days, got ${days}`);
    }
    const key = this.customerKey(ref, accountId, 'deleted');
    return this.update(key, { state: 'PendingDeletion', deletionDate: new Date(this.now() + days * DAY_MS).toISOString() });
  }

  /** As AWS CancelKeyDeletion: the key comes back disabled. */
  cancelDeletion(ref: string, accountId: string): KeyMetadata {
    const key = this.customerKey(ref, accountId, 'restored');
    if (key.state !== 'PendingDeletion') throw new KmsError('Invalid', `${this.arnOf(key.accountId, key.id)} is not pending deletion`);
    const { deletionDate: _cancelled, ...rest } = key;
    return this.update(key, { ...rest, state: 'Disabled' }, true);
  }

  /** Points alias `name` of `accountId` at `ref` (creating or moving it). */
  putAlias(accountId: string, name: string, ref: string): KeyMetadata {
    if (!ALIAS.test(name) || name.startsWith('alias/aws/')) throw new KmsError('Invalid', `alias '${name}': alias/ then letters, digits, /, _ and -, not alias/aws/`);
    const key = this.customerKey(ref, accountId, 'aliased');
    if (key.accountId !== accountId) throw new KmsError('AccessDenied', `${this.arnOf(key.accountId, key.id)} belongs to another account than the alias`);
    const aliases = this.file.aliases.filter((a) => !(a.accountId === accountId && a.name === name));
    this.commit({ ...this.file, aliases: [...aliases, { name, accountId, keyId: key.id }] });
    return this.metadataOf({ kind: 'stored', key });
  }

  deleteAlias(accountId: string, name: string): void {
    this.followOtherThreads();
    const aliases = this.file.aliases.filter((a) => !(a.accountId === accountId && a.name === name));
    if (aliases.length === this.file.aliases.length) throw new KmsError('NotFound', `no alias '${name}'`);
    this.commit({ ...this.file, aliases });
  }

  // -- KeyService --------------------------------------------------------------------------------

  async generateDataKey(accountId: string, keyRef: string | undefined, context: EncryptionContext): Promise<DataKey> {
    this.followOtherThreads();
    const found = this.find(keyRef ?? DEFAULT_KEY_ALIAS, accountId, false);
    this.usable(found);
    const { id, material, version } = this.latest(found);
    const plaintext = randomBytes(KEY_BYTES);
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', material, iv);
    cipher.setAAD(dataKeyAad(id, version, context));
    const head = Buffer.alloc(5);
    head[0] = BLOB_FORMAT;
    head.writeUInt32BE(version, 1);
    const ciphertext = Buffer.concat([head, iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return { keyArn: this.arnOf(accountIdOf(found), id), plaintext, ciphertext };
  }

  async decrypt(keyArn: string, ciphertext: Buffer, context: EncryptionContext): Promise<Buffer> {
    this.followOtherThreads();
    const m = KEY_ARN.exec(keyArn);
    if (!m || m[3] !== 'key') throw new KmsError('NotFound', `Invalid keyId ${keyArn}`);
    // by id: an object sealed before the region was changed still opens
    const found = this.byId(m[4]!, m[2]!, keyArn);
    this.usable(found);
    if (ciphertext.length !== BLOB_BYTES || ciphertext[0] !== BLOB_FORMAT) throw new KmsError('Invalid', 'the ciphertext is not one this key service made');
    const version = ciphertext.readUInt32BE(1);
    const materials = found.kind === 'default' ? [this.defaultMaterial(found.accountId)] : this.materials.get(found.key.id)!;
    const material = materials[version];
    if (!material) throw new KmsError('Invalid', `${keyArn} has no version ${version}`);
    const id = found.kind === 'default' ? defaultKeyId(found.accountId) : found.key.id;
    const decipher = createDecipheriv('aes-256-gcm', material, ciphertext.subarray(5, 5 + IV));
    decipher.setAAD(dataKeyAad(id, version, context));
    decipher.setAuthTag(ciphertext.subarray(BLOB_BYTES - TAG));
    try {
      return Buffer.concat([decipher.update(ciphertext.subarray(5 + IV, BLOB_BYTES - TAG)), decipher.final()]);
    } catch {
      throw new KmsError('Invalid', `the data key does not decrypt under ${keyArn} with this encryption context`);
    }
  }

  arnOf(accountId: string, id: string): string {
    return `arn:aws:kms:${this.region}:${accountId}:key/${id}`;
  }

  // -- inside --------------------------------------------------------------------------------------

  /**
   * The key `ref` names for `accountId`. A bare id resolves in the account (`anyAccount`: in every
   * account, for the operator); an ARN of another account's key is refused, as KMS refuses a key
   * whose policy does not grant the caller (no key policies here: a key serves its own account).
   */
  private find(ref: string, accountId: string, anyAccount: boolean): Found {
    const arn = KEY_ARN.exec(ref);
    if (arn) {
      if (arn[1] !== this.region) throw new KmsError('NotFound', `Invalid arn ${arn[1]}`);
      if (arn[2] !== accountId && !anyAccount) throw new KmsError('AccessDenied', `the key ${ref} belongs to another account`);
      const owner = arn[2]!;
      return arn[3] === 'alias' ? this.byAlias(`alias/${arn[4]}`, owner, ref) : this.byId(arn[4]!, owner, ref);
    }
    if (ref.startsWith('alias/')) return this.byAlias(ref, accountId, ref);
    if (anyAccount) {
      const key = this.live().find((k) => k.id === ref);
      if (key) return { kind: 'stored', key };
    }
    return this.byId(ref, accountId, ref);
  }

  private byId(id: string, accountId: string, ref: string): Found {
    if (id === defaultKeyId(accountId)) return { kind: 'default', accountId };
    const key = this.live().find((k) => k.id === id && k.accountId === accountId);
    if (!key) throw new KmsError('NotFound', KEY_ARN.test(ref) ? `Key '${ref}' does not exist` : `Invalid keyId ${ref}`);
    return { kind: 'stored', key };
  }

  private byAlias(name: string, accountId: string, ref: string): Found {
    if (name === DEFAULT_KEY_ALIAS) return { kind: 'default', accountId };
    const alias = this.file.aliases.find((a) => a.accountId === accountId && a.name === name);
    if (!alias) throw new KmsError('NotFound', `Alias ${ref} is not found.`);
    return this.byId(alias.keyId, accountId, ref);
  }

  private usable(found: Found): void {
    if (found.kind === 'default' || found.key.state === 'Enabled') return;
    const arn = this.arnOf(found.key.accountId, found.key.id);
    if (found.key.state === 'Disabled') throw new KmsError('Disabled', `${arn} is disabled.`);
    throw new KmsError('PendingDeletion', `${arn} is pending deletion.`);
  }

  private latest(found: Found): { id: string; material: Buffer; version: number } {
    if (found.kind === 'default') return { id: defaultKeyId(found.accountId), material: this.defaultMaterial(found.accountId), version: 0 };
    const materials = this.materials.get(found.key.id)!;
    return { id: found.key.id, material: materials[materials.length - 1]!, version: materials.length - 1 };
  }

  /** A stored (customer) key by `ref`; the default keys are AWS managed: not to be changed. */
  private customerKey(ref: string, accountId: string, what: string): StoredKey {
    this.followOtherThreads();
    const found = this.find(ref, accountId, true);
    if (found.kind === 'default') throw new KmsError('Invalid', `${DEFAULT_KEY_ALIAS} is the account's AWS managed key for S3: it cannot be ${what}`);
    return found.key;
  }

  private update(key: StoredKey, change: Partial<StoredKey>, replace = false): KeyMetadata {
    const next: StoredKey = replace ? (change as StoredKey) : { ...key, ...change };
    this.commit({ ...this.file, keys: this.file.keys.map((k) => (k.id === key.id ? next : k)) });
    return this.metadataOf({ kind: 'stored', key: next });
  }

  /** Keys not past their deletion date. */
  private live(): StoredKey[] {
    return this.file.keys.filter((k) => !this.deleted(k));
  }

  private deleted(k: StoredKey): boolean {
    return k.state === 'PendingDeletion' && Date.parse(k.deletionDate!) <= this.now();
  }

  /** Persists first, then applies (keys past their deletion date go, with their aliases). */
  private commit(next: KeyFile): void {
    const keys = next.keys.filter((k) => !this.deleted(k));
    const ids = new Set(keys.map((k) => k.id));
    const file: KeyFile = { ...next, keys, aliases: next.aliases.filter((a) => ids.has(a.keyId)) };
    const materials = this.unseal(file);
    writeFileDurably(this.path, JSON.stringify(file, null, 2) + '\n');
    this.file = file;
    this.materials = materials;
    this.changes.bump();
  }

  private followOtherThreads(): void {
    if (!this.changes.moved()) return;
    const file = JSON.parse(readFileSync(this.path, 'utf8')) as KeyFile;
    this.materials = this.unseal(file);
    this.file = file;
  }

  private metadataOf(found: Found): KeyMetadata {
    if (found.kind === 'default') {
      const id = defaultKeyId(found.accountId);
      return {
        KeyId: id, Arn: this.arnOf(found.accountId, id), AWSAccountId: found.accountId, KeyState: 'Enabled', Enabled: true,
        Description: 'Default key that protects my S3 objects when no other key is defined', KeyManager: 'AWS',
        CreationDate: new Date(0).toISOString(), Aliases: [DEFAULT_KEY_ALIAS], KeyVersions: 1,
      };
    }
    const k = found.key;
    const meta: KeyMetadata = {
      KeyId: k.id, Arn: this.arnOf(k.accountId, k.id), AWSAccountId: k.accountId, KeyState: k.state, Enabled: k.state === 'Enabled',
      Description: k.description, KeyManager: 'CUSTOMER', CreationDate: k.createdAt,
      Aliases: this.file.aliases.filter((a) => a.keyId === k.id).map((a) => a.name), KeyVersions: k.versions.length,
    };
    if (k.deletionDate) meta.DeletionDate = k.deletionDate;
    if (k.versions.length > 1) meta.LastRotationDate = k.versions[k.versions.length - 1]!.createdAt;
    return meta;
  }

  private sealMaterial(id: string, version: number, material: Buffer): string {
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', this.master, iv);
    cipher.setAAD(materialAad(id, version));
    return Buffer.concat([iv, cipher.update(material), cipher.final(), cipher.getAuthTag()]).toString('base64');
  }

  /** Every key version's material, opened; throws when one does not open (a changed file or master key). */
  private unseal(file: KeyFile): Map<string, Buffer[]> {
    const out = new Map<string, Buffer[]>();
    for (const key of file.keys) {
      out.set(key.id, key.versions.map((v, version) => {
        const sealed = Buffer.from(v.material, 'base64');
        const decipher = createDecipheriv('aes-256-gcm', this.master, sealed.subarray(0, IV));
        decipher.setAAD(materialAad(key.id, version));
        decipher.setAuthTag(sealed.subarray(IV + KEY_BYTES));
        try {
          return Buffer.concat([decipher.update(sealed.subarray(IV, IV + KEY_BYTES)), decipher.final()]);
        } catch {
          throw new Error(`${this.path}: key ${key.id} version ${version} does not open with the KMS master key`);
        }
      }));
    }
    return out;
  }

  private defaultMaterial(accountId: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.master, Buffer.alloc(0), `tusk-kms default key ${accountId}`, KEY_BYTES));
  }
}

function accountIdOf(found: Found): string {
  return found.kind === 'default' ? found.accountId : found.key.accountId;
}

/** The default key's id: a UUID-shaped name derived from the account (the same on every start). */
export function defaultKeyId(accountId: string): string {
  const h = createHash('sha256').update(`tusk-kms default key ${accountId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function masterKeyCheck(master: Buffer): string {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'tusk-kms master key check', 16)).toString('base64');
}

function materialAad(id: string, version: number): Buffer {
  return Buffer.from(`tusk-kms-material-v1\0${id}\0${version}`);
}

function dataKeyAad(id: string, version: number, context: EncryptionContext): Buffer {
  return Buffer.from(`tusk-kms-data-key-v1\0${id}\0${version}\0${canonicalContext(context)}`);
}
