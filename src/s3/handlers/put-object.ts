// PutObject (s3.md §3.13) as a pipeline with a fixed order (style.md §6): validate headers and
// limits → authorize → decode the body (raw or aws-chunked) → one fused digest pass and the
// segment write, chunk by chunk → verify every declared digest and trailer → conditional index
// commit → answer. Any failure or client abort leaves no index entry.

import { requireBucket, requireCapability } from '../access.js';
import { receiveBody } from '../body-pipeline.js';
import { bucketOf, type S3Context } from '../context.js';
import { headerNameOf, planChecksums } from '../checksums.js';
import { objectAttrsOf, rejectUnsupported, writeCondition } from '../object-input.js';
import { send } from '../respond.js';
import { openRequestBody } from '../request-body.js';

export const MAX_PUT_BYTES = 5 * 1024 ** 3;

export async function handlePutObject(ctx: S3Context): Promise<void> {
  const h = ctx.headers;
  const body = openRequestBody(ctx, MAX_PUT_BYTES);
  const attrs = objectAttrsOf(h, body.contentEncoding);
  const condition = writeCondition(h);
  const plan = planChecksums(h, body.trailer);
  const bucket = bucketOf(ctx);
  rejectUnsupported(h, bucket.objectLock);
  requireCapability(ctx.principal, 'write', bucket.name);
  requireBucket(ctx.principal, bucket, 'write');
  const key = ctx.resource.key!;

  const writer = ctx.services.store.beginWrite(body.length);
  let committed = false;
  try {
    const { digests, checksum } = await receiveBody(ctx, body, plan, writer);
    attrs.checksum = checksum;
    // the write condition is checked once, in the engine's commit transaction (style.md §7)
    const record = await writer.commit(bucket.name, key, { etag: digests.md5.toString('hex'), lastModified: Date.now(), attrs }, condition);
    committed = true;
    const out: Array<readonly [string, string]> = [['ETag', `"${record.etag}"`]];
    if (record.versionId !== 'null') out.push(['x-amz-version-id', record.versionId]);
    // echo the checksum when the client supplied or requested one (s3.md §3.0.2)
    if (plan.algorithm) {
      out.push([headerNameOf(checksum.algorithm), checksum.value], ['x-amz-checksum-type', 'FULL_OBJECT']);
    }
    send(ctx, 200, out);
  } finally {
    if (!committed) await writer.abort();
  }
}
