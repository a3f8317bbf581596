// The operation → IAM action → ACL permission table (src/s3/authz/actions.ts) for the object
// operations with versions, tags and uploads, pinned against AWS *Access control list (ACL)
// overview*, "Mapping of ACL permissions and access policy permissions" (issue 30): bucket WRITE
// grants s3:PutObject and s3:DeleteObject but s3:DeleteObjectVersion to the bucket owner only;
// object READ grants s3:GetObject, s3:GetObjectVersion, s3:GetObjectTorrent; READ_ACP / WRITE_ACP
// s3:Get/PutObject(Version)Acl; nothing grants tagging or the upload actions (AWS *Multipart upload
// API and permissions*: the bucket owner and the initiator).

import { describe, expect, it } from 'vitest';
import { OPERATION_ACCESS, actionOf, versionAccess } from '../../../src/s3/authz/actions.js';
import type { S3Operation } from '../../../src/s3/operations.js';

/** action and granting ACL permission ('-' none), then the same by version id when it differs */
const EXPECTED: Array<[S3Operation, string, string, string?, string?]> = [
  ['PutObject', 's3:PutObject', 'bucket:WRITE'],
  ['DeleteObject', 's3:DeleteObject', 'bucket:WRITE', 's3:DeleteObjectVersion', '-'],
  ['GetObject', 's3:GetObject', 'object:READ', 's3:GetObjectVersion', 'object:READ'],
  ['HeadObject', 's3:GetObject', 'object:READ', 's3:GetObjectVersion', 'object:READ'],
  ['GetObjectAttributes', 's3:GetObjectAttributes', 'object:READ', 's3:GetObjectVersionAttributes', 'object:READ'],
  ['GetObjectTorrent', 's3:GetObjectTorrent', 'object:READ'],
  ['GetObjectTagging', 's3:GetObjectTagging', '-', 's3:GetObjectVersionTagging', '-'],
  ['PutObjectTagging', 's3:PutObjectTagging', '-', 's3:PutObjectVersionTagging', '-'],
  ['DeleteObjectTagging', 's3:DeleteObjectTagging', '-', 's3:DeleteObjectVersionTagging', '-'],
  ['GetObjectAcl', 's3:GetObjectAcl', 'object:READ_ACP', 's3:GetObjectVersionAcl', 'object:READ_ACP'],
  ['PutObjectAcl', 's3:PutObjectAcl', 'object:WRITE_ACP', 's3:PutObjectVersionAcl', 'object:WRITE_ACP'],
  ['CreateMultipartUpload', 's3:PutObject', 'bucket:WRITE'],
  ['UploadPart', 's3:PutObject', 'bucket:WRITE'],
  ['CompleteMultipartUpload', 's3:PutObject', 'bucket:WRITE'],
  ['AbortMultipartUpload', 's3:AbortMultipartUpload', '-'],
  ['ListParts', 's3:ListMultipartUploadParts', '-'],
  ['ListObjectVersions', 's3:ListBucketVersions', 'bucket:READ'],
  ['ListMultipartUploads', 's3:ListBucketMultipartUploads', 'bucket:READ'],
];

function row(op: S3Operation, byVersionId: boolean): [string, string] {
  const access = versionAccess(OPERATION_ACCESS[op], byVersionId);
  return [actionOf(access, undefined), access.acl ? `${access.acl.on}:${access.acl.permission}` : '-'];
}

describe('ACL mapping of versions, tags and uploads', () => {
  it.each(EXPECTED)('%s: %s granted by %s; by version id %s granted by %s', (op, action, acl, versionAction = action, versionAcl = acl) => {
    expect(row(op, false)).toEqual([action, acl]);
    expect(row(op, true)).toEqual([versionAction, versionAcl]);
  });

  it('only AbortMultipartUpload and ListParts let the upload initiator in', () => {
    const initiator = (Object.keys(OPERATION_ACCESS) as S3Operation[]).filter((op) => OPERATION_ACCESS[op].initiator);
    expect(initiator.sort()).toEqual(['AbortMultipartUpload', 'ListParts']);
  });

  it('no ACL permission grants an action the mapping leaves out (tagging, retention, legal hold, upload actions)', () => {
    for (const op of Object.keys(OPERATION_ACCESS) as S3Operation[]) {
      for (const byVersionId of [false, true]) {
        const [action, acl] = row(op, byVersionId);
        if (/Tagging|Retention|LegalHold|AbortMultipartUpload|ListMultipartUploadParts|DeleteObjectVersion$/.test(action)) expect(acl, `${op} ${action}`).toBe('-');
      }
    }
  });
});
