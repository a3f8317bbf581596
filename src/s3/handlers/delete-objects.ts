// DeleteObjects (s3.md §3.17, XML §4.7–4.8): up to 1000 keys, each deleted as DeleteObject would,
// with per-key errors; the body's Content-MD5 or x-amz-checksum-* is required and verified.

import { digestsNeeded, planChecksums, verifyChecksums } from '../checksums.js';
import { writableBucket, type S3Context } from '../context.js';
import { S3Error, type S3ErrorCode } from '../errors.js';
import { readSmallBody } from '../request-body.js';
import { sendXml } from '../respond.js';
import { isStoreFailure, s3ErrorOfStore } from '../store-errors.js';
import { doc, el } from '../xml.js';
import { childrenOf, parseXmlBody, textOf } from '../xml-input.js';
import { isVersionId } from './version-id.js';
import type { DeleteOutcome } from '../../store/types.js';

const MAX_DELETE_KEYS = 1000;
const MAX_DELETE_XML = 2 * 1024 * 1024;

interface DeleteEntry {
  key: string;
  versionId?: string;
}

export type DeleteResultEntry =
  | { kind: 'deleted'; key: string; versionId?: string; deleteMarker?: boolean; deleteMarkerVersionId?: string }
  | { kind: 'error'; key: string; versionId?: string; code: S3ErrorCode; message: string };

function parseDelete(body: Buffer): { quiet: boolean; entries: DeleteEntry[] } {
  const root = parseXmlBody(body, 'Delete');
  const quiet = (textOf(root, 'Quiet') ?? 'false').trim().toLowerCase() === 'true';
  const objects = childrenOf(root, 'Object');
  if (objects.length < 1 || objects.length > MAX_DELETE_KEYS) throw new S3Error('MalformedXML');
  const entries = objects.map((o) => {
    const key = textOf(o, 'Key');
    if (key === undefined || key === '') throw new S3Error('MalformedXML');
    const versionId = textOf(o, 'VersionId');
    return versionId === undefined ? { key } : { key, versionId };
  });
  return { quiet, entries };
}

/** "Checksum required" operations (s3.md §3.0.2): Content-MD5 or an x-amz-checksum-* header must be there. */
async function verifiedBody(ctx: S3Context): Promise<Buffer> {
  const h = ctx.headers;
  const hasChecksum = Object.keys(h).some((n) => n.startsWith('x-amz-checksum-') && n !== 'x-amz-checksum-algorithm' && n !== 'x-amz-checksum-type' && n !== 'x-amz-checksum-mode');
  if (h['content-md5'] === undefined && !hasChecksum && h['x-amz-trailer'] === undefined) {
    throw new S3Error('InvalidRequest', {}, { message: 'Missing required header for this request: Content-MD5' });
  }
  const plan = planChecksums(h, undefined);
  const body = await readSmallBody(ctx, MAX_DELETE_XML);
  const hasher = ctx.services.digester.create(digestsNeeded(plan, false));
  await hasher.update(body);
  verifyChecksums(plan, hasher.digest(), {});
  return body;
}

function deleted(entry: DeleteEntry, outcome: DeleteOutcome): DeleteResultEntry {
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

export async function handleDeleteObjects(ctx: S3Context): Promise<void> {
  const bucket = writableBucket(ctx);
  const { quiet, entries } = parseDelete(await verifiedBody(ctx));
  const store = ctx.services.store;
  // the engine batches concurrent index writes into group commits
  const results = await Promise.all(
    entries.map(async (entry): Promise<DeleteResultEntry> => {
      if (entry.versionId !== undefined && entry.versionId !== 'null' && !isVersionId(entry.versionId)) {
        return failed(entry, new S3Error('NoSuchVersion'));
      }
      try {
        const options = entry.versionId === undefined ? {} : { versionId: entry.versionId };
        return deleted(entry, await store.deleteObject(bucket.name, entry.key, options));
      } catch (e) {
        if (isStoreFailure(e)) return failed(entry, s3ErrorOfStore(e, { style: 'path', bucket: bucket.name, key: entry.key }));
        return failed(entry, new S3Error('InternalError'));
      }
    }),
  );
  sendXml(ctx, renderDeleteResult(results, quiet));
}
