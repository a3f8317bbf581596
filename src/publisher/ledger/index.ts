// The publisher's embedded ledger (walrus.md §9, architecture.md "Ledger").

export { base58Decode, base58Encode } from './base58.js';
export type { BlobCertificate, CertifyBlobResult, DeleteBlobResult, ExtendBlobResult, ReclaimResult, RegisterBlobInput, RegisterBlobResult, ShareBlobResult, TransferBlobResult } from './blob-plans.js';
export { isQuorum } from './blob-plans.js';
export { runLedgerCli, LEDGER_USAGE } from './cli.js';
export {
  BYTES_PER_UNIT,
  DEFAULT_STORAGE_PRICE_PER_UNIT,
  DEFAULT_WRITE_PRICE_PER_UNIT,
  FROST_PER_WAL,
  encodedLength,
  maxBlobSize,
  metadataLength,
  registrationCost,
  shardParameters,
  storageUnits,
  symbolSize,
  type Prices,
  type ShardParameters,
} from './costs.js';
export { GENESIS_EPOCH } from './epoch-clock.js';
export { LEDGER_ERRORS, LedgerError, type LedgerErrorCode, type LedgerErrorInfo } from './errors.js';
export { isObjectId, isTxDigest, normalizeAddress } from './ids.js';
export {
  DEFAULT_INITIAL_BALANCE,
  DEFAULT_MAX_EPOCHS_AHEAD,
  Ledger,
  openExistingLedger,
  openLedger,
  type CertifiedPermanentMatch,
  type LedgerOptions,
} from './ledger.js';
export { LEDGER_ROUTES, parseLedgerArgs, parseLedgerRoute, runLedgerQuery, type LedgerQuery } from './ledger-query.js';
export {
  alreadyCertifiedJson,
  alreadyCertifiedObjectJson,
  newlyCreatedJson,
  reuseOperation,
  type AlreadyCertifiedJson,
  type NewlyCreatedJson,
  type ResourceOperationJson,
} from './response-json.js';
export type * from './types.js';
