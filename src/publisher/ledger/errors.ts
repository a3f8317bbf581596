// The ledger's one error table: each code with the AIP-193 status/reason (walrus.md §10.4) a
// JSON renderer should use. Walrus answers most chain aborts with a 500; Tusk reports client
// mistakes as 4xx (walrus.md §10.4 "Recommended for Tusk").

export type LedgerErrorCode =
  | 'InvalidEpochsAhead'
  | 'InvalidBlobId'
  | 'InvalidAddress'
  | 'InvalidArgument'
  | 'InsufficientBalance'
  | 'NoSuchObject'
  | 'NoSuchTransaction'
  | 'NoSuchEvent'
  | 'NotABlob'
  | 'BlobNotDeletable'
  | 'BlobDeleted'
  | 'BlobExpired'
  | 'BlobAlreadyCertified'
  | 'BlobNotReclaimable'
  | 'InvalidCertificate'
  | 'QuorumNotReached'
  | 'LedgerNotFound'
  | 'LedgerCorrupt';

export type AipStatus = 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION' | 'NOT_FOUND' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'INTERNAL';

export interface LedgerErrorInfo {
  httpStatus: number;
  status: AipStatus;
  /** `ErrorInfo.reason`, SCREAMING_SNAKE as Walrus spells its reasons */
  reason: string;
  message: string;
}

export const LEDGER_ERRORS: Record<LedgerErrorCode, LedgerErrorInfo> = {
  // walrus.md §9.3: `EInvalidEpochsAhead`; §10.4 recommends 400 INVALID_EPOCHS.
  InvalidEpochsAhead: { httpStatus: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_EPOCHS', message: 'epochs must be between 1 and the maximum number of epochs ahead' },
  InvalidBlobId: { httpStatus: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_BLOB_ID', message: 'a blob id is 43 base64url characters (32 bytes)' },
  InvalidAddress: { httpStatus: 400, status: 'INVALID_ARGUMENT', reason: 'MALFORMED_REQUEST', message: 'an address or object id is 0x followed by 64 hexadecimal digits' },
  InvalidArgument: { httpStatus: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_ARGUMENT', message: 'invalid argument' },
  // The publisher's wallet running dry is not the client's fault (walrus.md §15, walrus#2114).
  InsufficientBalance: { httpStatus: 503, status: 'UNAVAILABLE', reason: 'INSUFFICIENT_BALANCE', message: 'the publisher wallet does not hold enough WAL to pay for this blob' },
  NoSuchObject: { httpStatus: 404, status: 'NOT_FOUND', reason: 'OBJECT_NOT_FOUND', message: 'no ledger object has this id' },
  NoSuchTransaction: { httpStatus: 404, status: 'NOT_FOUND', reason: 'TRANSACTION_NOT_FOUND', message: 'no ledger transaction has this digest' },
  NoSuchEvent: { httpStatus: 404, status: 'NOT_FOUND', reason: 'EVENT_NOT_FOUND', message: 'no ledger event has this id' },
  NotABlob: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'NOT_A_BLOB', message: 'the object is not a Blob object' },
  BlobNotDeletable: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'BLOB_NOT_DELETABLE', message: 'the blob is permanent and cannot be deleted' },
  BlobDeleted: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'BLOB_DELETED', message: 'the blob object was deleted' },
  BlobExpired: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'BLOB_EXPIRED', message: 'the blob storage has reached its end epoch' },
  BlobAlreadyCertified: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'BLOB_ALREADY_CERTIFIED', message: 'the blob object is already certified' },
  BlobNotReclaimable: { httpStatus: 400, status: 'FAILED_PRECONDITION', reason: 'BLOB_NOT_RECLAIMABLE', message: 'the blob is neither expired nor deleted, or was already reclaimed' },
  InvalidCertificate: { httpStatus: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_CERTIFICATE', message: 'the certificate is malformed or for another epoch' },
  // walrus.md §9.3: certification needs 3·weight ≥ 2n + 1.
  QuorumNotReached: { httpStatus: 504, status: 'DEADLINE_EXCEEDED', reason: 'INSUFFICIENT_CONFIRMATIONS', message: 'the certificate is not signed by a quorum of shards' },
  LedgerNotFound: { httpStatus: 500, status: 'INTERNAL', reason: 'LEDGER_NOT_FOUND', message: 'no ledger exists at this path' },
  LedgerCorrupt: { httpStatus: 500, status: 'INTERNAL', reason: 'LEDGER_CORRUPT', message: 'the ledger failed an integrity check' },
};

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: LedgerErrorCode, details: Record<string, unknown> = {}, message?: string) {
    super(message ?? LEDGER_ERRORS[code].message);
    this.name = 'LedgerError';
    this.code = code;
    this.details = details;
  }

  get info(): LedgerErrorInfo {
    return LEDGER_ERRORS[this.code];
  }
}
