// The quilt routes' work (walrus.md §10.1, §11; walrus daemon routes.rs put_quilt, quilt reads):
// a multipart form becomes a quilt blob stored like any other, and patches are read back out of
// the rebuilt quilt blob by patch id or by identifier.

import { LRUCache } from 'lru-cache';
import type { ConsistencyCheck } from '../rs2/rs2-native.js';
import { openBlob } from './aggregator.js';
import type { BlobReadContext, PublisherContext } from './context.js';
import { PublisherError } from './errors.js';
import { storeBlob, type StoreResult } from './store-blob.js';
import type { StoreQuery } from './store-query.js';
import { encodeQuiltPatchId, parseQuiltPatchId } from '../quilt/patch-id.js';
import { encodeQuilt, QuiltFormatError, readQuiltIndex, readQuiltPatch, type QuiltFile } from '../quilt/quilt-format.js';

/** routes.rs WALRUS_NATIVE_METADATA_FIELD_NAME: the form field with per-file identifiers' tags. */
export const QUILT_METADATA_FIELD = '_metadata';

export interface QuiltStoreJson {
  blobStoreResult: StoreResult;
  storedQuiltBlobs: Array<{ identifier: string; quiltPatchId: string }>;
}

/** routes.rs QuiltPatchItem (serialized without renaming: snake_case). */
export interface QuiltPatchItem {
  identifier: string;
  patch_id: string;
  tags: Record<string, string>;
}

export interface PatchRead {
  identifier: string;
  tags: Record<string, string>;
  contents: Buffer;
}

/**
 * routes.rs parse_multipart_quilt: every field but `_metadata` is a file named by its field name;
 * `_metadata` is a JSON array of {identifier, tags}; non-string tag values are kept as JSON text.
 */
export async function parseQuiltForm(body: Buffer, contentType: string | undefined): Promise<QuiltFile[]> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new PublisherError('MALFORMED_REQUEST', 'a quilt is sent as multipart/form-data');
  }
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch (e) {
    throw new PublisherError('MALFORMED_REQUEST', `failed to parse multipart form: ${(e as Error).message}`);
  }
  const tags = new Map<string, Record<string, string>>();
  const files: QuiltFile[] = [];
  for (const [name, value] of form) {
    if (name === QUILT_METADATA_FIELD) {
      const text = typeof value === 'string' ? value : await value.text();
      for (const entry of parseMetadata(text)) {
        if (tags.has(entry.identifier)) throw new PublisherError('MALFORMED_REQUEST', `duplicate identifier '${entry.identifier}' in ${QUILT_METADATA_FIELD}`);
        tags.set(entry.identifier, entry.tags);
      }
    } else {
      const contents = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(await value.arrayBuffer());
      files.push({ identifier: name, contents });
    }
  }
  if (files.length === 0) throw new PublisherError('MALFORMED_REQUEST', 'no files provided in multipart form');
  return files.map((f) => ({ ...f, tags: tags.get(f.identifier) }));
}

function parseMetadata(text: string): Array<{ identifier: string; tags: Record<string, string> }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PublisherError('MALFORMED_REQUEST', `${QUILT_METADATA_FIELD} is not JSON`);
  }
  if (!Array.isArray(parsed)) throw new PublisherError('MALFORMED_REQUEST', `${QUILT_METADATA_FIELD} must be a JSON array`);
  return parsed.map((item: unknown) => {
    const entry = item as { identifier?: unknown; tags?: unknown };
    if (typeof entry?.identifier !== 'string') throw new PublisherError('MALFORMED_REQUEST', `every ${QUILT_METADATA_FIELD} entry needs an identifier`);
    const raw = entry.tags ?? {};
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new PublisherError('MALFORMED_REQUEST', `tags of '${entry.identifier}' must be an object`);
    const tags = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return { identifier: entry.identifier, tags };
  });
}

export async function storeQuilt(ctx: PublisherContext, files: readonly QuiltFile[], query: StoreQuery): Promise<QuiltStoreJson> {
  try {
    return await storeQuiltFiles(ctx, files, query);
  } catch (e) {
    if (e instanceof QuiltFormatError) throw new PublisherError('MALFORMED_REQUEST', `failed to construct quilt: ${e.message}`);
    throw e;
  }
}

/** storeQuilt, files that cannot make one quilt failing with the QuiltFormatError. */
export async function storeQuiltFiles(ctx: PublisherContext, files: readonly QuiltFile[], query: StoreQuery): Promise<QuiltStoreJson> {
  const quilt = encodeQuilt(files, ctx.nShards);
  const result = await storeBlob(ctx, quilt.blob, query);
  const quiltId = 'newlyCreated' in result ? result.newlyCreated.blobObject.blobId : result.alreadyCertified.blobId;
  return {
    blobStoreResult: result,
    storedQuiltBlobs: quilt.patches.map((p) => ({ identifier: p.identifier, quiltPatchId: encodeQuiltPatchId({ quiltId, start: p.start, end: p.end }) })),
  };
}

export async function readPatchById(ctx: BlobReadContext, patchIdText: string, check?: ConsistencyCheck): Promise<PatchRead & { quiltId: string }> {
  const id = parseQuiltPatchId(patchIdText);
  if (!id) throw new PublisherError('INVALID_QUILT_PATCH_ID', `got '${patchIdText.slice(0, 80)}'`);
  const blob = await readQuilt(ctx, id.quiltId, check);
  return { quiltId: id.quiltId, ...asPatch(() => readQuiltPatch(blob, ctx.nShards, id.start, id.end)) };
}

export async function readPatchByIdentifier(ctx: BlobReadContext, quiltId: string, identifier: string, check?: ConsistencyCheck): Promise<PatchRead> {
  const blob = await readQuilt(ctx, quiltId, check);
  const patch = asPatch(() => readQuiltIndex(blob, ctx.nShards)).find((p) => p.identifier === identifier);
  if (!patch) throw new PublisherError('QUILT_PATCH_NOT_FOUND', `no patch '${identifier.slice(0, 80)}' in quilt ${quiltId}`);
  return asPatch(() => readQuiltPatch(blob, ctx.nShards, patch.start, patch.end));
}

export async function listPatches(ctx: BlobReadContext, quiltId: string, check?: ConsistencyCheck): Promise<QuiltPatchItem[]> {
  const blob = await readQuilt(ctx, quiltId, check);
  return asPatch(() => readQuiltIndex(blob, ctx.nShards)).map((p) => ({
    identifier: p.identifier,
    patch_id: encodeQuiltPatchId({ quiltId, start: p.start, end: p.end }),
    tags: p.tags,
  }));
}

/** walrus daemon args.rs `allowed_headers` default: the tags that become response headers. */
const ALLOWED_TAG_HEADERS: ReadonlySet<string> = new Set(['content-type', 'authorization', 'content-disposition', 'content-encoding', 'content-language', 'content-location', 'link']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/**
 * routes.rs build_quilt_patch_response: the identifier in X-Quilt-Patch-Identifier, and the patch's
 * allowed tags as headers (`content-type` only where the request names no type). Names or values a
 * header cannot carry are left out, as the daemon leaves them out.
 */
export function patchHeaders(patch: PatchRead): { contentType?: string; headers: Array<readonly [string, string]> } {
  const headers: Array<readonly [string, string]> = [];
  let contentType: string | undefined;
  for (const [rawName, value] of Object.entries(patch.tags)) {
    const name = rawName.toLowerCase();
    if (!ALLOWED_TAG_HEADERS.has(name) || !HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) continue;
    if (name === 'content-type') contentType = value;
    else headers.push([name, value]);
  }
  if (HEADER_VALUE.test(patch.identifier)) headers.push(['x-quilt-patch-identifier', patch.identifier]);
  return { contentType, headers };
}

/**
 * Quilts rebuilt lately, by id, per storage network. A patch read rebuilds its whole quilt (n_primary
 * slivers and a decode, about a second at 1 000 shards), and a quilt's patches are read together
 * (an S3 bucket's small objects written at once share one): one rebuild serves the reads of its
 * patches that arrive meanwhile and for QUILT_CACHE_TTL_MS after. A blob id names its bytes, so an
 * entry is never wrong; the TTL only bounds how long a lapsed quilt still reads.
 */
const QUILT_CACHE_BYTES = 64 * 1024 * 1024;
const QUILT_CACHE_MAX_QUILT = 16 * 1024 * 1024;
const QUILT_CACHE_TTL_MS = 30_000;
const rebuiltQuilts = new WeakMap<object, LRUCache<string, Buffer, BlobReadContext>>();

function quiltCache(ctx: BlobReadContext): LRUCache<string, Buffer, BlobReadContext> {
  let cache = rebuiltQuilts.get(ctx.backend.slivers);
  if (!cache) {
    cache = new LRUCache<string, Buffer, BlobReadContext>({
      maxSize: QUILT_CACHE_BYTES,
      maxEntrySize: QUILT_CACHE_MAX_QUILT,
      sizeCalculation: (b) => Math.max(1, b.length),
      ttl: QUILT_CACHE_TTL_MS,
      fetchMethod: async (quiltId, _stale, { context }) => (await openBlob(context, quiltId)).whole(),
    });
    rebuiltQuilts.set(ctx.backend.slivers, cache);
  }
  return cache;
}

/** The quilt blob; a read asking for a consistency check other than the default's rebuilds it afresh. */
async function readQuilt(ctx: BlobReadContext, quiltId: string, check?: ConsistencyCheck): Promise<Buffer> {
  if (check !== undefined && check !== 'default') return (await openBlob(ctx, quiltId)).whole(check);
  return (await quiltCache(ctx).fetch(quiltId, { context: ctx }))!;
}

/** A blob that is not a quilt, or columns where no patch starts, hold no such patch. */
function asPatch<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof QuiltFormatError || e instanceof RangeError) throw new PublisherError('QUILT_PATCH_NOT_FOUND', e.message);
    throw e;
  }
}
