// A bucket's server access logging (AWS *PutBucketLogging*, *Enabling Amazon S3 server access
// logging*): the BucketLoggingStatus document, checked at put time, stored with the source bucket,
// rendered back by GetBucketLogging; and the permission check AWS makes on the target bucket.

import { LOG_DELIVERY } from '../authz/acl.js';
import { aclsDisabled, bucketAcl } from '../authz/authorize.js';
import { compiledPolicy, evaluatePolicy } from '../authz/policy.js';
import { S3Error } from '../errors/errors.js';
import type { BucketLogging, S3Bucket, TargetGrant } from '../object-attrs.js';
import { doc, el } from '../xml.js';
import { parseXmlBody, xmlChildren, xmlTextOf, type XmlNode } from '../xml-input.js';

export const MAX_LOGGING_BODY = 64 * 1024;
/** the service principal a target bucket's policy grants s3:PutObject (AWS *Permissions for log delivery*) */
export const LOGGING_SERVICE = 'logging.s3.amazonaws.com';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

type PartitionDateSource = NonNullable<BucketLogging['partitioned']>['dateSource'];

const DATE_SOURCES: ReadonlySet<string> = new Set(['EventTime', 'DeliveryTime']);
const GRANT_PERMISSIONS: ReadonlySet<string> = new Set(['FULL_CONTROL', 'READ', 'WRITE']);

function grantOf(node: XmlNode): TargetGrant {
  const grantee = xmlChildren(node.Grantee)[0];
  const permission = xmlTextOf(node.Permission);
  if (!grantee || permission === undefined || !GRANT_PERMISSIONS.has(permission)) throw new S3Error('MalformedXML');
  const type = grantee['@_type'];
  const text = (name: string): string => {
    const v = xmlTextOf(grantee[name]);
    if (!v) throw new S3Error('MalformedXML');
    return v;
  };
  const p = permission as TargetGrant['permission'];
  if (type === 'CanonicalUser') return { grantee: { type, id: text('ID') }, permission: p };
  if (type === 'Group') return { grantee: { type, uri: text('URI') }, permission: p };
  if (type === 'AmazonCustomerByEmail') return { grantee: { type, email: text('EmailAddress') }, permission: p };
  throw new S3Error('MalformedXML');
}

/** The BucketLoggingStatus body of PutBucketLogging; undefined when it disables logging (no LoggingEnabled). */
export function parseBucketLoggingStatus(xml: string): BucketLogging | undefined {
  const root = parseXmlBody(xml, 'BucketLoggingStatus', ['Grant']);
  if (root.LoggingEnabled === undefined) return undefined;
  const enabled = xmlChildren(root.LoggingEnabled)[0]!;
  const targetBucket = xmlTextOf(enabled.TargetBucket);
  const targetPrefix = xmlTextOf(enabled.TargetPrefix);
  // both are required members of LoggingEnabled (AWS API reference)
  if (!targetBucket || targetPrefix === undefined) throw new S3Error('MalformedXML');
  const logging: BucketLogging = { targetBucket, targetPrefix };
  if (enabled.TargetGrants !== undefined) {
    const grants = xmlChildren(xmlChildren(enabled.TargetGrants)[0]?.Grant).map(grantOf);
    if (grants.length) logging.targetGrants = grants;
  }
  if (enabled.TargetObjectKeyFormat !== undefined) {
    const format = xmlChildren(enabled.TargetObjectKeyFormat)[0]!;
    const simple = format.SimplePrefix !== undefined;
    const partitioned = format.PartitionedPrefix !== undefined;
    // exactly one of the two (the schema's choice)
    if (simple === partitioned) throw new S3Error('MalformedXML');
    if (partitioned) {
      const source = xmlTextOf(xmlChildren(format.PartitionedPrefix)[0]?.PartitionDateSource) ?? 'EventTime';
      if (!DATE_SOURCES.has(source)) throw new S3Error('MalformedXML');
      logging.partitioned = { dateSource: source as PartitionDateSource };
    }
  }
  return logging;
}

function grantXml(g: TargetGrant): string {
  const e = g.grantee;
  const inner = e.type === 'CanonicalUser' ? el('ID', e.id) : e.type === 'Group' ? el('URI', e.uri) : el('EmailAddress', e.email);
  return `<Grant><Grantee xmlns:xsi="${XSI}" xsi:type="${e.type}">${inner}</Grantee>${el('Permission', g.permission)}</Grant>`;
}

/** GetBucketLogging's document: empty when logging is off. The key format is given back, SimplePrefix by default. */
export function renderBucketLoggingStatus(logging: BucketLogging | undefined): string {
  if (!logging) return doc('BucketLoggingStatus', '');
  let inner = el('TargetBucket', logging.targetBucket) + el('TargetPrefix', logging.targetPrefix);
  if (logging.targetGrants) inner += `<TargetGrants>${logging.targetGrants.map(grantXml).join('')}</TargetGrants>`;
  const format = logging.partitioned
    ? `<PartitionedPrefix>${el('PartitionDateSource', logging.partitioned.dateSource)}</PartitionedPrefix>`
    : '<SimplePrefix/>';
  inner += `<TargetObjectKeyFormat>${format}</TargetObjectKeyFormat>`;
  return doc('BucketLoggingStatus', `<LoggingEnabled>${inner}</LoggingEnabled>`);
}

/** Who delivers logs of `source` and where, as the target's policy conditions see it. */
export interface LogSource {
  bucket: string;
  /** the source bucket owner's account id and canonical id (aws:SourceAccount takes either) */
  accountIds: readonly string[];
}

/**
 * May S3's log delivery write `prefix` into `target` for `source` (AWS *Permissions for log
 * delivery*)? Its bucket policy allows the logging service principal s3:PutObject on the prefix
 * (conditions on aws:SourceArn and aws:SourceAccount are evaluated), or, where ACLs are on, its ACL
 * grants the LogDelivery group WRITE. An explicit Deny wins.
 */
export function logDeliveryAllowed(target: S3Bucket, prefix: string, source: LogSource): boolean {
  const text = target.access?.policy;
  if (text !== undefined) {
    const values = (key: string): string | readonly string[] | undefined =>
      key === 'aws:sourcearn' ? `arn:aws:s3:::${source.bucket}` : key === 'aws:sourceaccount' ? source.accountIds : undefined;
    const verdict = evaluatePolicy(compiledPolicy(text, target.name), { anonymous: false, service: LOGGING_SERVICE }, 's3:PutObject', `arn:aws:s3:::${target.name}/${prefix}`, values);
    if (verdict === 'deny') return false;
    if (verdict !== 'none') return true;
  }
  if (aclsDisabled(target)) return false;
  return bucketAcl(target).grants.some(
    (g) => g.grantee.type === 'Group' && g.grantee.uri === LOG_DELIVERY && (g.permission === 'WRITE' || g.permission === 'FULL_CONTROL'),
  );
}

/**
 * The checks of PutBucketLogging on its target (AWS *PutBucketLogging*, error InvalidTargetBucketForLogging:
 * "The target bucket for logging does not exist, is not owned by you, or does not have the
 * appropriate grants for the log-delivery group").
 */
export function checkLoggingTarget(source: S3Bucket, target: S3Bucket | undefined, logging: BucketLogging, sourceIds: readonly string[]): void {
  const refuse = (message: string): never => {
    throw new S3Error('InvalidTargetBucketForLogging', { TargetBucket: logging.targetBucket }, { message });
  };
  if (!target) refuse('The target bucket for logging does not exist');
  // "The source and destination buckets must be owned by the same AWS account" (Enabling server access logging)
  if (target!.owner !== source.owner) refuse('The owner for the bucket to be logged and the target bucket must be the same.');
  if (!logDeliveryAllowed(target!, logging.targetPrefix, { bucket: source.name, accountIds: sourceIds })) {
    refuse('You must give the log-delivery group WRITE and READ_ACP permissions to the target bucket');
  }
}
