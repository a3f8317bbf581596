// DeleteObjects (s3.md §3.17, XML §4.7–4.8): up to 1000 keys, each deleted as DeleteObject would,
// with per-key errors; the body's Content-MD5 or x-amz-checksum-* is required and verified. An
// entry's `<ETag>` is DeleteObject's If-Match for that key (AWS "conditional deletes").

import { requireKeyDeletable } from '../authz/request.js';
import { normalizeEtag } from '../conditionals.js';
import { bucketOf, type S3Context } from '../context.js';
import { S3Error, type S3ErrorCode } from '../errors/errors.js';
import { readIntegrityCheckedBody } from '../request-body.js';
import { sendXml } from '../respond.js';
import { s3ErrorOfStore } from '../store-errors.js';
import { StoreError } from '../../store/errors.js';
import { doc, el } from '../xml.js';
import { childrenOf, parseExactXml, textOf } from '../xml-input.js';
import { deleteAuthority, deleteVersion } from './delete-object.js';
import type { DeleteObjectsParams } from '../routes/deletes.js';
import { isVersionId } from '../routes/version-id.js';
import type { DeleteOutcome, WriteCondition } from '../../store/types.js';

const MAX_DELETE_KEYS = 1000;
const MAX_DELETE_XML = 2 * 1024 * 1024;

interface DeleteEntry {
  key: string;
  versionId?: string;
  /** the entry's `<ETag>` as written */
  etag?: string;
  condition?: WriteCondition;
}

export type DeleteResultEntry =
  | { kind: 'deleted'; key: string; versionId?: string; deleteMarker?: boolean; deleteMarkerVersionId?: string }
  | { kind: 'error'; key: string; versionId?: string; code: S3ErrorCode; message: string };

function parseDelete(body: Buffer): { quiet: boolean; entries: DeleteEntry[] } {
  const root = parseExactXml(body, 'Delete');
  const quiet = (textOf(root, 'Quiet') ?? 'false').trim().toLowerCase() === 'true';
  const objects = childrenOf(root, 'Object');
  if (objects.length < 1 || objects.length > MAX_DELETE_KEYS) throw new S3Error('MalformedXML');
  const entries = objects.map((o) => {
    const key = textOf(o, 'Key');
    if (key === undefined || key === '') throw new S3Error('MalformedXML');
    const entry: DeleteEntry = { key };
    const versionId = textOf(o, 'VersionId');
    if (versionId !== undefined) entry.versionId = versionId;
    const etag = textOf(o, 'ETag');
    if (etag !== undefined) {
      entry.etag = etag;
      entry.condition = { ifMatch: normalizeEtag(etag) };
    }
    return entry;
  });
  return { quiet, entries };
}

/** "Checksum required" operations (s3.md §3.0.2): Content-MD5 or an x-amz-checksum-* header must be there. */
function deleted(ctx: S3Context, entry: DeleteEntry, outcome: DeleteOutcome): DeleteResultEntry {
  // server access logs' BATCH.DELETE.OBJECT records: only what was deleted or marked, not a key that was not
  // there; the version id as DeleteObject's x-amz-version-id would give it
  if (outcome.kind === 'marker') (ctx.summary.batchDeleted ??= []).push({ key: entry.key, versionId: outcome.marker.versionId });
  if (outcome.kind === 'removed') {
    const { version } = outcome;
    (ctx.summary.batchDeleted ??= []).push({
      key: entry.key,
      ...(entry.versionId !== undefined ? { versionId: version.versionId } : {}),
      ...(version.deleteMarker ? {} : { size: version.size }),
    });
  }
  const out: DeleteResultEntry = { kind: 'deleted', key: entry.key };
  if (entry.versionId !== undefined) out.versionId = entry.versionId;
  if (outcome.kind === 'marker') {
    out.deleteMarker = true;
    out.deleteMarkerVersionId = outcome.marker.versionId;
  } else if (outcome.kind === 'removed' && outcome.version.deleteMarker) {
    out.deleteMarker = true;
    out.deleteMarkerVersionId = outcome.version.versionId;
  }
  return out;
}

function failed(entry: DeleteEntry, err: S3Error): DeleteResultEntry {
  const out: DeleteResultEntry = { kind: 'error', key: entry.key, code: err.code, message: err.message };
  if (entry.versionId !== undefined) out.versionId = entry.versionId;
  return out;
}

export function renderDeleteResult(entries: readonly DeleteResultEntry[], quiet: boolean): string {
  let xml = '';
  for (const e of entries) {
    const version = e.versionId !== undefined ? el('VersionId', e.versionId) : '';
    if (e.kind === 'error') {
      xml += `<Error>${el('Key', e.key)}${version}${el('Code', e.code)}${el('Message', e.message)}</Error>`;
    } else if (!quiet) {
      xml += `<Deleted>${el('Key', e.key)}${version}`;
      if (e.deleteMarker) xml += el('DeleteMarker', 'true') + el('DeleteMarkerVersionId', e.deleteMarkerVersionId!);
      xml += '</Deleted>';
    }
  }
  return doc('DeleteResult', xml);
}

export async function handleDeleteObjects(ctx: S3Context, params: DeleteObjectsParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const { quiet, entries } = parseDelete(await readIntegrityCheckedBody(ctx, MAX_DELETE_XML));
  // MFA is checked once for the request; a wrong code fails the whole request (s3.md §2.14)
  const authority = deleteAuthority(ctx, bucket, params, false);
  // the engine batches concurrent index writes into group commits
  const results = await Promise.all(
    entries.map(async (entry): Promise<DeleteResultEntry> => {
      if (entry.versionId !== undefined && entry.versionId !== 'null' && !isVersionId(entry.versionId)) {
        return failed(entry, new S3Error('NoSuchVersion'));
      }
      try {
        requireKeyDeletable(ctx, bucket, entry.key, entry.versionId, entry.etag);
        return deleted(ctx, entry, await deleteVersion(ctx, bucket, entry.key, entry.versionId, authority, entry.condition));
      } catch (e) {
        if (e instanceof S3Error) return failed(entry, e);
        if (e instanceof StoreError) return failed(entry, s3ErrorOfStore(e, { style: 'path', bucket: bucket.name, key: entry.key }));
        return failed(entry, new S3Error('InternalError'));
      }
    }),
  );
  sendXml(ctx, renderDeleteResult(results, quiet));
}
