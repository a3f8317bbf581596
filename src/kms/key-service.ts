// What the S3 face asks of a key management service for SSE-KMS (envelope encryption): a new data
// key under a customer key, and a data key back from its ciphertext. The built-in service
// (key-registry.ts) implements it; an external KMS would implement the same interface (its protocol
// is in docs/KMS.md). Keys are named as AWS names them: a key id, its ARN, an alias or an alias ARN.

/** An encryption context: string pairs bound to the ciphertext (AWS KMS "Encryption context"). */
export type EncryptionContext = Readonly<Record<string, string>>;

export type KeyState = 'Enabled' | 'Disabled' | 'PendingDeletion';

/** A key as DescribeKey shows it (AWS KMS KeyMetadata's names). */
export interface KeyMetadata {
  KeyId: string;
  Arn: string;
  AWSAccountId: string;
  KeyState: KeyState;
  Enabled: boolean;
  Description: string;
  /** CUSTOMER: made by the operator; AWS: an account's default key for S3 (alias/aws/s3) */
  KeyManager: 'CUSTOMER' | 'AWS';
  CreationDate: string;
  DeletionDate?: string;
  Aliases: string[];
  /** key versions (1 + rotations); every version stays to decrypt what it encrypted */
  KeyVersions: number;
  LastRotationDate?: string;
}

/** Why a key cannot be used; the S3 face answers AWS's error for each (s3/sse/kms.ts). */
export type KmsErrorKind = 'NotFound' | 'Disabled' | 'PendingDeletion' | 'AccessDenied' | 'Invalid' | 'Conflict';

export class KmsError extends Error {
  constructor(
    readonly kind: KmsErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface DataKey {
  /** the ARN of the key version's key that encrypted it (stored with the object) */
  keyArn: string;
  plaintext: Buffer;
  /** opaque to the caller; what decrypt() takes back */
  ciphertext: Buffer;
}

export interface KeyService {
  /**
   * A new 32-byte data key encrypted under `keyRef` (absent: the account's default key, alias/aws/s3),
   * bound to `context`. `accountId` is the caller's account: names resolve in it, and a key of
   * another account is refused (KmsError AccessDenied).
   */
  generateDataKey(accountId: string, keyRef: string | undefined, context: EncryptionContext): Promise<DataKey>;
  /** The data key of `ciphertext` made under `keyArn` with `context`; KmsError when the key is not usable. */
  decrypt(keyArn: string, ciphertext: Buffer, context: EncryptionContext): Promise<Buffer>;
}

/** The context as bytes: its pairs sorted by name, as JSON (the same pairs give the same bytes). */
export function canonicalContext(context: EncryptionContext): string {
  return JSON.stringify(Object.keys(context).sort().map((k) => [k, context[k]]));
}
