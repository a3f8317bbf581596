// Metadata for objects stored outside the S3 face (storage-node parts, benchmarks, tests): no S3
// headers, the default class and ACL, the null version.

import type { ObjectMeta } from './types.js';

export function internalObjectMeta(size: number, etag = '', lastModified = Date.now()): ObjectMeta {
  return {
    size,
    etag,
    lastModified,
    contentType: 'application/octet-stream',
    storageClass: 'STANDARD',
    acl: 'private',
    headers: {},
    meta: {},
    versionId: 'null',
  };
}
