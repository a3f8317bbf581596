// `tusk storage-node`: one storage node as its own process, serving the REST API until SIGTERM/SIGINT.

import { parseArgs as parseOptions } from 'node:util';
import { formatShardRanges, parseShardRanges } from '../nodes/shard-assignment.js';
import { serveStorageNode } from '../nodes/http-server.js';
import { openBlobCodec } from '../rs2/codec.js';
import { nativeBlobVerifier } from '../rs2/native-verifier.js';
import { openLocalNode } from '../nodes/local-node.js';
import { startNodeThreads, type NodeThreads } from '../nodes/node-threads.js';
import { lockDataDir } from '../../store/data-dir-lock.js';
import { chooseHttpEngine, httpEngine, parseHttpEngineMode, type HttpEngineMode } from '../../http/engine.js';
import { sharedInFlightCounts } from '../../http/listener.js';

export const STORAGE_NODE_USAGE = `Usage: tusk storage-node --data-dir DIR --shards a-b[,c-d] [options]

Runs one storage node: stores metadata and sliver pairs of the shards it holds and signs an
Ed25519 confirmation per blob (its key is created in DIR on first start).

Options:
  --listen HOST:PORT    address to serve on (default 127.0.0.1:31416; port 0 picks a free port)
  --data-dir DIR        the node's directory (storage engine, node key)
  --shards RANGES       shards this node holds, inclusive ranges: 0-99,200-299
  --n-shards N          shards in the whole network (default 1000, as on Walrus mainnet)
  --node-id ID          name in confirmations and health (default storage-node-<first shard>)
  --durability MODE     strict (default: acknowledged = fsynced) or relaxed
  --threads N           threads serving the port (default 1): each answers metadata, sliver and
                        confirmation reads itself; stores, deletes and health go to the first
  --http-engine E       auto (default), uws or node, as for tusk serve (TUSK_HTTP_ENGINE)`;

interface StorageNodeArgs {
  host: string;
  port: number;
  dataDir: string;
  shards: number[];
  nShards: number;
  nodeId: string;
  durability: 'strict' | 'relaxed';
  threads: number;
  httpEngine: HttpEngineMode;
}

function parseArgs(argv: string[]): StorageNodeArgs {
  const { values } = parseOptions({
    args: argv,
    options: {
      listen: { type: 'string', default: '127.0.0.1:31416' },
      'data-dir': { type: 'string' },
      shards: { type: 'string' },
      'n-shards': { type: 'string', default: '1000' },
      'node-id': { type: 'string' },
      durability: { type: 'string', default: 'strict' },
      threads: { type: 'string', default: '1' },
      'http-engine': { type: 'string', default: process.env.TUSK_HTTP_ENGINE || 'auto' },
    },
    strict: true,
  });
  const listenMatch = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(values.listen);
  if (!listenMatch || Number(listenMatch[3]) > 65535) throw new Error(`--listen needs HOST:PORT, got '${values.listen}'`);
  if (!/^\d+$/.test(values['n-shards'])) throw new Error(`--n-shards needs an integer, got '${values['n-shards']}'`);
  const nShards = Number(values['n-shards']);
  if (nShards < 4) throw new Error('--n-shards must be at least 4 (walrus.md §2)');
  const dataDir = values['data-dir'];
  if (!dataDir) throw new Error('--data-dir is required');
  if (!values.shards) throw new Error('--shards is required');
  const shards = parseShardRanges(values.shards, nShards);
  const durability = values.durability;
  if (durability !== 'strict' && durability !== 'relaxed') throw new Error(`--durability must be strict or relaxed, got '${durability}'`);
  if (!/^[1-9]\d{0,2}$/.test(values.threads)) throw new Error(`--threads needs an integer from 1 to 999, got '${values.threads}'`);
  return {
    host: listenMatch[1] ?? listenMatch[2]!,
    port: Number(listenMatch[3]),
    dataDir,
    shards,
    nShards,
    nodeId: values['node-id'] ?? `storage-node-${shards[0]}`,
    durability,
    threads: Number(values.threads),
    httpEngine: parseHttpEngineMode(values['http-engine'], '--http-engine'),
  };
}

/** Runs until SIGTERM or SIGINT (or `stop` aborts, for tests); resolves to the process exit code. */
export async function runStorageNodeCli(argv: string[], stop?: AbortSignal): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(STORAGE_NODE_USAGE);
    return 0;
  }
  let args: StorageNodeArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    console.error(`tusk storage-node: ${(e as Error).message}\n\n${STORAGE_NODE_USAGE}`);
    return 2;
  }
  const { engine, why } = chooseHttpEngine(args.httpEngine);
  console.log(`storage-node: http engine: ${engine.name} (${why})`);
  if (args.threads > 1 && !engine.sharesPorts) {
    console.log(`storage-node: --threads ${args.threads}: the node engine shares a port between threads from Node 22.12 on (this is ${process.version}); serving on one thread`);
    args.threads = 1;
  }
  const running = await startNode(args);
  if (args.durability === 'relaxed') console.log('storage-node: durability relaxed: acknowledged writes are not flushed to disk');
  console.log(`storage-node ${args.nodeId}: shards ${formatShardRanges(args.shards)} of ${args.nShards}, public key ${running.publicKey}`);
  console.log(`storage-node listening on ${running.url}${args.threads > 1 ? ` with ${args.threads} threads` : ''}`);
  const signal = await new Promise<string>((resolve) => {
    const onTerm = () => finish('SIGTERM');
    const onInt = () => finish('SIGINT');
    const onStop = () => finish('stop requested');
    const finish = (name: string) => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      stop?.removeEventListener('abort', onStop);
      resolve(name);
    };
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop);
  });
  console.log(`storage-node: ${signal}: closing`);
  await running.close();
  console.log('storage-node: stopped');
  return 0;
}

/** Locks the directory, opens the node and serves it; a failure closes what was opened, the lock included. */
async function startNode(args: StorageNodeArgs): Promise<{ url: string; publicKey: string; close(): Promise<void> }> {
  const opened: Array<() => unknown> = [];
  try {
    const lock = lockDataDir(args.dataDir, 'storage node directory');
    opened.push(() => lock.release());
    // a node on its own receives slivers from publishers it does not control: check every hash (walrus.md §7.2)
    const codec = await openBlobCodec();
    opened.push(() => codec.close());
    let threads: NodeThreads | undefined;
    const node = await openLocalNode({
      dir: args.dataDir, nodeId: args.nodeId, shards: args.shards, nShards: args.nShards, durability: args.durability,
      verifier: nativeBlobVerifier(codec),
      onSegmentRemoved: (segment) => threads?.segmentRemoved(segment),
    });
    opened.push(() => node.close());
    const inFlightCounts = args.threads > 1 ? sharedInFlightCounts(args.threads) : undefined;
    const server = await serveStorageNode(node, args.host, args.port, inFlightCounts);
    opened.push(() => server.close(0));
    if (inFlightCounts) {
      threads = await startNodeThreads({
        count: args.threads - 1,
        dir: args.dataDir,
        nodeId: args.nodeId,
        shards: [...node.shards],
        nShards: args.nShards,
        host: args.host,
        port: server.port,
        inFlightCounts,
        httpEngine: httpEngine().name,
        handler: server.handler,
        log: (line) => console.error(`storage-node: ${line}`),
      });
    }
    return {
      url: server.url,
      publicKey: node.publicKey,
      async close() {
        // every thread keeps its connections until the requests of all of them are answered
        await Promise.all([server.close(), threads?.close(10_000)]);
        await node.close();
        await codec.close();
        lock.release();
      },
    };
  } catch (e) {
    for (const close of opened.reverse()) await close();
    throw e;
  }
}
