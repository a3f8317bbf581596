// Where a read of an object's bytes goes: blobs on Walrus (storage class WALRUS), sealed blocks
// (SSE) or a plain body in the engine.

import type { S3Services } from '../context.js';
import { ServedByWriter } from '../errors/errors.js';
import type { S3Object } from '../object-attrs.js';
import { openUnsealedRead } from '../sse/sse.js';
import { openWalrusRead } from '../walrus-objects.js';
import type { BodyReader } from '../../store/types.js';

/** Bytes [start, end) of an object's plaintext; `dataKey` opens an encrypted one. */
export function openObjectRead(services: S3Services, record: S3Object, dataKey: Buffer | undefined, start: number, end: number): BodyReader {
  const walrus = record.attrs.walrus;
  if (walrus) {
    // a front-end thread without the network's read path (Walrus on Sui) cannot serve it: the
    // pipeline hands it to the writer thread; where there is none to hand it to, it is this 503
    if (!services.walrusReads) throw new ServedByWriter('The Walrus network of this object is not reachable from here');
    return openWalrusRead(services.walrusReads, record.key, walrus, start, end);
  }
  return dataKey ? openUnsealedRead(services.store, record, dataKey, start, end) : services.store.openRead(record, start, end);
}
