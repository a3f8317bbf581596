// Loading the Walrus backend (walrus-backend.ts and, through it, @mysten/sui) only when a Walrus
// network is chosen (config/: --network), so that S3 and the embedded publisher never load it.

/** @mysten/sui 2.x (package.json engines) needs Node 22; S3 and the embedded publisher do not. */
export const WALRUS_MIN_NODE_MAJOR = 22;

/** The Walrus backend module, loaded only when a Walrus network is chosen, and only on Node 22 or later. */
export async function loadWalrusBackend(nodeVersion = process.versions.node): Promise<typeof import('./walrus-backend.js')> {
  const major = Number(nodeVersion.split('.')[0]);
  if (major < WALRUS_MIN_NODE_MAJOR) {
    throw new Error(`network: a Walrus network (testnet, mainnet, local or a client config file) needs Node ${WALRUS_MIN_NODE_MAJOR} or later (the Sui SDK's gRPC client does); this is Node ${nodeVersion}. The embedded network and S3 run on Node 20.`);
  }
  return import('./walrus-backend.js');
}
