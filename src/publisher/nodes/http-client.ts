// A storage node in another process, reached over its REST API (walrus.md §12.2) with global fetch.
// Transport failures and timeouts become NODE_UNAVAILABLE; JSON errors become the node's typed error.

import { unshared } from '../../base/cross-thread-bytes.js';
import { errorFromBody, StorageNodeError, unreachable, type StorageNodeErrorCode } from './errors.js';
import { routeTarget, type NodeRoute } from './http-routes.js';
import type { BlobType, NodeHealth, NodeInfo, PutOutcome, SignedConfirmation, SliverAxis, StorageNodeClient } from './types.js';

export interface RemoteNodeOptions {
  /** Per request; a sliver upload to a slow node must still finish (walrus.md §15). Default 60 s. */
  timeoutMs?: number;
}

const METHOD: Record<NodeRoute['op'], string> = {
  health: 'GET',
  putMetadata: 'PUT',
  getMetadata: 'GET',
  putSliver: 'PUT',
  getSliver: 'GET',
  getConfirmation: 'GET',
  deleteBlob: 'DELETE',
};

export class RemoteNodeClient implements StorageNodeClient {
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(url: string, options: RemoteNodeOptions = {}) {
    this.url = url.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  async info(): Promise<NodeInfo> {
    const { nodeId, publicKey, shards, nShards } = await this.health();
    return { nodeId, publicKey, shards, nShards };
  }

  async health(): Promise<NodeHealth> {
    return this.json<NodeHealth>(await this.call({ op: 'health' }));
  }

  async putMetadata(blobId: Buffer, metadataBcs: Buffer): Promise<PutOutcome> {
    return putOutcome(await this.call({ op: 'putMetadata', blobId }, metadataBcs));
  }

  async getMetadata(blobId: Buffer): Promise<Buffer | undefined> {
    return this.optional(() => this.call({ op: 'getMetadata', blobId }), 'METADATA_NOT_FOUND');
  }

  async putSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis, sliverBcs: Buffer): Promise<PutOutcome> {
    return putOutcome(await this.call({ op: 'putSliver', blobId, pairIndex, axis }, sliverBcs));
  }

  async getSliver(blobId: Buffer, pairIndex: number, axis: SliverAxis): Promise<Buffer | undefined> {
    return this.optional(() => this.call({ op: 'getSliver', blobId, pairIndex, axis }), 'SLIVER_NOT_FOUND');
  }

  async getConfirmation(blobId: Buffer, blobType: BlobType, epoch: number): Promise<SignedConfirmation> {
    const data = this.json<{ signed?: SignedConfirmation }>(await this.call({ op: 'getConfirmation', blobId, blobType, epoch }));
    if (typeof data.signed?.serializedMessage !== 'string' || typeof data.signed.signature !== 'string') {
      throw new StorageNodeError('NODE_UNAVAILABLE', `${this.url} answered a confirmation without a signed message`);
    }
    return data.signed;
  }

  async deleteBlob(blobId: Buffer): Promise<number> {
    return this.json<{ removed: number }>(await this.call({ op: 'deleteBlob', blobId })).removed;
  }

  async close(): Promise<void> {}

  private async optional(request: () => Promise<{ status: number; body: Buffer }>, missing: StorageNodeErrorCode): Promise<Buffer | undefined> {
    try {
      return (await request()).body;
    } catch (e) {
      if (e instanceof StorageNodeError && e.code === missing) return undefined;
      throw e;
    }
  }

  /** One request; resolves on 2xx with the whole body, throws the node's typed error otherwise. */
  private async call(route: NodeRoute, body?: Buffer): Promise<{ status: number; body: Buffer }> {
    const target = `${this.url}${routeTarget(route)}`;
    let response: Response;
    let bytes: Buffer;
    try {
      response = await fetch(target, {
        method: METHOD[route.op],
        body: body && unshared(body),
        headers: body ? { 'content-type': 'application/octet-stream' } : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      bytes = Buffer.from(await response.arrayBuffer());
    } catch (e) {
      throw unreachable(`${METHOD[route.op]} ${target}`, e);
    }
    if (response.status >= 200 && response.status < 300) return { status: response.status, body: bytes };
    throw errorFromBody(response.status, bytes.toString('utf8'));
  }

  private json<T>(answer: { body: Buffer }): T {
    try {
      const parsed = JSON.parse(answer.body.toString('utf8')) as { success?: { data?: T } };
      if (parsed.success?.data !== undefined) return parsed.success.data;
    } catch {
      // fall through
    }
    throw new StorageNodeError('NODE_UNAVAILABLE', `${this.url} answered without a {"success": …} body`);
  }
}

function putOutcome(answer: { status: number }): PutOutcome {
  return answer.status === 201 ? 'stored' : 'already-stored';
}
