// Object lock API (s3.md §3.12, §3.0.9): the bucket's configuration with default retention, and a
// version's retention and legal hold. Changes are judged inside the engine's attrs transaction, so
// two racing requests cannot both shorten a retention.

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import type { S3Object } from '../object-attrs.js';
import {
  retentionChangeRefusal,
  bypassRequested,
  governanceBypass,
  isRetentionMode,
  MISSING_LOCK_CONFIGURATION,
  parseLegalHoldStatus,
  parseRetainUntil,
} from '../object-lock.js';
import { send, sendXml } from '../respond.js';
import { doc, el } from '../xml.js';
import { xmlChildren, xmlTextOf } from '../xml-input.js';
import { readXmlRequest } from '../xml-request.js';
import type { BucketVersionControl, S3Bucket } from '../object-attrs.js';
import { requestedVersionId } from '../routes/version-id.js';

type LockRule = NonNullable<BucketVersionControl['lockRule']>;

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1)) {
    throw new S3Error('InvalidArgument', {}, { message: 'Default retention period must be a positive integer value.' });
  }
  return n;
}

function parseRule(node: ReturnType<typeof xmlChildren>[number] | undefined): LockRule | undefined {
  if (!node) return undefined;
  const retention = xmlChildren(node['DefaultRetention'])[0];
  if (!retention) throw new S3Error('MalformedXML');
  const mode = xmlTextOf(retention['Mode']);
  if (!isRetentionMode(mode)) throw new S3Error('MalformedXML');
  const days = positiveInt(xmlTextOf(retention['Days']));
  const years = positiveInt(xmlTextOf(retention['Years']));
  // exactly one of Days and Years (AWS PutObjectLockConfiguration)
  if ((days === undefined) === (years === undefined)) throw new S3Error('MalformedXML');
  return days !== undefined ? { mode, days } : { mode, years };
}

export async function handlePutObjectLockConfiguration(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const config = await readXmlRequest(ctx, 'ObjectLockConfiguration', [], 'required');
  const enabled = xmlTextOf(config['ObjectLockEnabled']);
  if (enabled !== 'Enabled') throw new S3Error('MalformedXML');
  const rule = parseRule(xmlChildren(config['Rule'])[0]);
  // an existing bucket can take object lock once versioning is Enabled (AWS, since 2023)
  const notEnabled = () =>
    new S3Error('InvalidBucketState', {}, { message: "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration" });
  if (!bucket.objectLock && bucket.versioning !== 'Enabled') throw notEnabled();
  let refused = false;
  await ctx.services.store.updateBucket(bucket.name, (current) => {
    if (!current.objectLock && current.versioning !== 'Enabled') return ((refused = true), current);
    const versionControl = { ...current.versionControl };
    if (rule) versionControl.lockRule = rule;
    else delete versionControl.lockRule;
    return { ...current, objectLock: true, versionControl };
  });
  if (refused) throw notEnabled();
  send(ctx, 200);
}

export async function handleGetObjectLockConfiguration(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (!bucket.objectLock) throw new S3Error('ObjectLockConfigurationNotFoundError', { BucketName: bucket.name });
  const rule = bucket.versionControl?.lockRule;
  let body = el('ObjectLockEnabled', 'Enabled');
  if (rule) {
    const period = rule.days !== undefined ? el('Days', rule.days) : el('Years', rule.years!);
    body += `<Rule><DefaultRetention>${el('Mode', rule.mode)}${period}</DefaultRetention></Rule>`;
  }
  sendXml(ctx, doc('ObjectLockConfiguration', body));
}

function lockBucket(ctx: S3Context): S3Bucket {
  const bucket = bucketOf(ctx);
  if (!bucket.objectLock) throw new S3Error('InvalidRequest', {}, { message: MISSING_LOCK_CONFIGURATION });
  return bucket;
}

/** The addressed version (latest when no id); NoSuchKey / NoSuchVersion / 405 for a delete marker. */
function addressedVersion(ctx: S3Context, bucket: S3Bucket, versionId: string | undefined): S3Object {
  const key = ctx.resource.key!;
  const found = ctx.services.store.getObject(bucket.name, key, versionId);
  if (!found) {
    throw versionId === undefined ? new S3Error('NoSuchKey', { Key: key }) : new S3Error('NoSuchVersion', { Key: key, VersionId: versionId });
  }
  if (found.deleteMarker) {
    throw new S3Error('MethodNotAllowed', { Method: ctx.head.method, ResourceType: 'DeleteMarker' }, {
      headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': found.versionId },
    });
  }
  return found;
}

/**
 * Changes one version's attrs in place; `update` runs inside the engine's transaction, against the
 * version as committed, and refuses by returning an S3Error (never throwing inside the transaction:
 * the attrs then stay as they were). Headers name the version changed.
 */
async function updateLock(
  ctx: S3Context,
  bucket: S3Bucket,
  update: (attrs: S3Object['attrs']) => S3Object['attrs'] | S3Error,
): Promise<void> {
  const versionId = requestedVersionId(ctx);
  const target = addressedVersion(ctx, bucket, versionId);
  let refused: S3Error | undefined;
  const changed = await ctx.services.store.updateAttrs(bucket.name, target.key, target.versionId, (attrs) => {
    const next = update(attrs);
    if (next instanceof S3Error) {
      refused = next;
      return attrs;
    }
    return next;
  });
  if (refused) throw refused;
  send(ctx, 200, changed.versionId !== 'null' ? [['x-amz-version-id', changed.versionId]] : []);
}

export async function handlePutObjectRetention(ctx: S3Context): Promise<void> {
  const bucket = lockBucket(ctx);
  const body = await readXmlRequest(ctx, 'Retention', [], 'required');
  const mode = xmlTextOf(body['Mode']);
  const until = xmlTextOf(body['RetainUntilDate']);
  if ((mode === undefined) !== (until === undefined)) throw new S3Error('MalformedXML');
  if (mode !== undefined && !isRetentionMode(mode)) throw new S3Error('MalformedXML');
  const next = mode !== undefined ? { mode: mode as 'GOVERNANCE' | 'COMPLIANCE', until: parseRetainUntil(until!, 'RetainUntilDate') } : undefined;
  const bypass = governanceBypass(bypassRequested(ctx.headers), ctx.principal, bucket);
  await updateLock(ctx, bucket, (attrs) => {
    const refusal = retentionChangeRefusal(attrs.retention, next, Date.now(), bypass);
    if (refusal) return refusal;
    const { retention: _old, ...rest } = attrs;
    return next ? { ...rest, retention: next } : rest;
  });
}

export async function handleGetObjectRetention(ctx: S3Context): Promise<void> {
  const bucket = lockBucket(ctx);
  const version = addressedVersion(ctx, bucket, requestedVersionId(ctx));
  const r = version.attrs.retention;
  if (!r) throw new S3Error('NoSuchObjectLockConfiguration');
  sendXml(ctx, doc('Retention', el('Mode', r.mode) + el('RetainUntilDate', new Date(r.until).toISOString())));
}

export async function handlePutObjectLegalHold(ctx: S3Context): Promise<void> {
  const bucket = lockBucket(ctx);
  const body = await readXmlRequest(ctx, 'LegalHold', [], 'required');
  const status = xmlTextOf(body['Status']);
  if (status !== 'ON' && status !== 'OFF') throw new S3Error('MalformedXML');
  const on = parseLegalHoldStatus(status, 'Status');
  await updateLock(ctx, bucket, (attrs) => ({ ...attrs, legalHold: on }));
}

export async function handleGetObjectLegalHold(ctx: S3Context): Promise<void> {
  const bucket = lockBucket(ctx);
  const version = addressedVersion(ctx, bucket, requestedVersionId(ctx));
  if (version.attrs.legalHold === undefined) throw new S3Error('NoSuchObjectLockConfiguration');
  sendXml(ctx, doc('LegalHold', el('Status', version.attrs.legalHold ? 'ON' : 'OFF')));
}
