// `tusk ledger ...`: look up the ledger of a (possibly running) publisher and print JSON.

import { LedgerError } from './errors.js';
import { openExistingLedger } from './ledger.js';
import { parseLedgerArgs, runLedgerQuery } from './ledger-query.js';

export const LEDGER_USAGE = `Usage: tusk ledger <command>

Commands (each prints JSON):
  tx <digest>             a transaction and its effects and events (digest in Base58)
  event <digest> <seq>    one event of a transaction (seq is its index, "0" for the first)
  object <id>             a Blob or Storage object (0x + 64 hex digits)
  blob <blobId>           every Blob object registered for a blob id (base64url)
  expired                 blobs whose slivers may be reclaimed from the storage nodes
  status                  epoch, epoch length, wallet balance, prices, chain head
  verify                  check every link of the transaction hash chain (exit 1 if broken)`;

/** Exit codes: 0 found / chain intact, 1 not found / chain broken / error, 2 usage. */
export async function runLedgerCli(argv: string[], ledgerPath: string): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(LEDGER_USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const query = parseLedgerArgs(argv);
  if (query === undefined) {
    console.error(`tusk ledger: unknown command or wrong arguments: ${argv.join(' ')}\n\n${LEDGER_USAGE}`);
    return 2;
  }
  let ledger;
  try {
    ledger = await openExistingLedger(ledgerPath);
  } catch (e) {
    console.error(`tusk ledger: ${e instanceof LedgerError ? `${e.message}: ${ledgerPath}` : (e as Error).message}`);
    return 1;
  }
  try {
    const answer = await runLedgerQuery(ledger, query);
    console.log(JSON.stringify(answer, null, 2));
    return query.kind === 'verify' && (answer as { ok: boolean }).ok !== true ? 1 : 0;
  } catch (e) {
    if (!(e instanceof LedgerError)) throw e;
    console.error(`tusk ledger: ${e.message} (${JSON.stringify(e.details)})`);
    return 1;
  } finally {
    await ledger.close();
  }
}
