// What objects stored outside the S3 face (storage-node parts, benchmarks, tests) commit: an etag,
// the time, and no attrs of their own.

import type { VersionInput } from './types.js';

export function internalObjectMeta(etag = '', lastModified = Date.now()): VersionInput<undefined> {
  return { etag, lastModified, attrs: undefined };
}
