// Where each part of the server keeps its files inside the data directory.

/** the publisher's ledger (LMDB) */
export const LEDGER_DIR = 'ledger';
/** the embedded storage nodes, one directory each */
export const NODES_DIR = 'nodes';
/** the checked copies of the TLS certificate and key the listeners load (http/tls-snapshots.ts) */
export const TLS_DIR = 'tls';
