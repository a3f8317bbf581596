// Put/Get/DeleteBucketLifecycleConfiguration (AWS API; rules in src/s3/lifecycle/rules.ts, applied
// by src/s3/lifecycle/worker.ts).

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { lifecycleRulesOf, parseLifecycle, renderLifecycle, TRANSITION_CLASS } from '../lifecycle/rules.js';
import { send, sendXml } from '../respond.js';
import { readXmlRequest } from '../xml-request.js';

export async function handlePutBucketLifecycleConfiguration(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const rules = parseLifecycle(await readXmlRequest(ctx, 'LifecycleConfiguration', ['Rule', 'Tag'], 'required'));
  // as a write naming the class (object-input.ts): WALRUS needs the publisher's network here
  if (!ctx.services.walrusReads && rules.some((r) => r.transition || r.noncurrentTransition)) {
    throw new S3Error('InvalidStorageClass', { StorageClassRequested: TRANSITION_CLASS }, { message: 'Storage class WALRUS needs the publisher (--publisher-listen) on this server' });
  }
  await ctx.services.store.updateBucket(bucket.name, (current) => ({
    ...current,
    versionControl: { ...current.versionControl, lifecycle: rules },
  }));
  send(ctx, 200);
}

export async function handleGetBucketLifecycleConfiguration(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const rules = lifecycleRulesOf(bucket);
  if (!rules?.length) throw new S3Error('NoSuchLifecycleConfiguration', { BucketName: bucket.name });
  sendXml(ctx, renderLifecycle(rules));
}

export async function handleDeleteBucketLifecycle(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  if (bucket.versionControl?.lifecycle) {
    await ctx.services.store.updateBucket(bucket.name, (current) => {
      const { lifecycle: _dropped, ...rest } = current.versionControl ?? {};
      return { ...current, versionControl: rest };
    });
  }
  send(ctx, 204);
}
