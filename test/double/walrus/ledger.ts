// Reading the double's ledger (WalrusDouble.transactions()) in tests: what a transaction called,
// who sent it and which blobs it registered, to check what a publisher paid for.

import { bcs } from '@mysten/sui/bcs';
import type { TxRecord } from '../../../src/publisher/local-network/chain.js';
import { BlobRegistered, blobIdFromInt } from '../../../src/publisher/local-network/sdk.js';

/** The Move calls of a transaction. */
export function moveCalls(txBytes: Uint8Array): { module: string; function: string }[] {
  return bcs.TransactionData.parse(txBytes).V1!.kind.ProgrammableTransaction!.commands.flatMap((c) => (c.MoveCall ? [c.MoveCall] : []));
}

/** The address that sent (and paid gas for) a transaction. */
export function txSender(txBytes: Uint8Array): string {
  return bcs.TransactionData.parse(txBytes).V1!.sender;
}

/** The blob ids a transaction registered (its BlobRegistered events). */
export function registeredBlobIds(tx: Pick<TxRecord, 'events'>): string[] {
  return tx.events.filter((e) => e.type.endsWith('::events::BlobRegistered')).map((e) => blobIdFromInt(BlobRegistered.parse(e.bcs).blob_id));
}
