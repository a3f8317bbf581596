// A storage node's worker thread (node-threads.ts): its own listener on the node's port, a read-only
// view of the node's directory for the read routes, and the bridge to the node's thread for the rest.

import { parentPort, workerData } from 'node:worker_threads';
import { forwardTo } from '../../http/thread-bridge.js';
import { chooseHttpEngine, listen } from '../../http/engine.js';
import { endOnUncaught } from '../../http/listener-threads.js';
import { nodeReadHandler, nodeRefusal } from './http-server.js';
import { openLocalNodeReader } from './local-node.js';
import type { FromNodeWorker, NodeWorkerData, ToNodeWorker } from './node-threads.js';

const data = workerData as NodeWorkerData;
const port = parentPort!;
const tell = (m: FromNodeWorker): void => port.postMessage(m);

async function start(): Promise<void> {
  // the node's own thread's engine (it resolved `auto`)
  chooseHttpEngine(data.httpEngine);
  const reader = await openLocalNodeReader({ dir: data.dir, nodeId: data.nodeId, shards: data.shards, nShards: data.nShards });
  const reads = nodeReadHandler(reader, data.nShards);
  const bridge = forwardTo(data.bridge);
  const server = await listen(
    data.host,
    data.port,
    (ex) => {
      reader.refresh();
      return reads(ex) ?? bridge.forward(ex);
    },
    undefined,
    { sharedPort: true, inFlight: { counts: data.inFlightCounts, slot: data.index }, refuse: nodeRefusal },
  );
  port.on('message', (m: ToNodeWorker) => {
    if (m.t === 'segment-removed') reader.segmentRemoved(m.segment);
    else {
      void (async () => {
        await server.close(m.graceMs);
        await reader.close();
        tell({ t: 'closed' });
      })();
    }
  });
  endOnUncaught(() => server.close(0));
  tell({ t: 'ready' });
}

start().catch((e: unknown) => tell({ t: 'failed', message: (e as Error).stack ?? String(e) }));
