// Put/Get/DeleteBucketWebsite through the AWS SDK (issue 37 §4): the configuration is kept and
// given back, and S3's refusals store nothing. Serving the site: website-endpoint.test.ts.

import { describe, expect, it } from 'vitest';
import {
  CreateBucketCommand,
  DeleteBucketWebsiteCommand,
  GetBucketWebsiteCommand,
  PutBucketWebsiteCommand,
  type WebsiteConfiguration,
} from '@aws-sdk/client-s3';
import { s3Client } from './helpers/clients.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const ctx = useTusk();

const SITE: WebsiteConfiguration = {
  IndexDocument: { Suffix: 'index.html' },
  ErrorDocument: { Key: 'error.html' },
  RoutingRules: [
    { Condition: { KeyPrefixEquals: 'docs/' }, Redirect: { ReplaceKeyPrefixWith: 'documents/', HttpRedirectCode: '302' } },
    { Condition: { HttpErrorCodeReturnedEquals: '404' }, Redirect: { HostName: 'example.com', Protocol: 'https' } },
  ],
};

describe('bucket website configuration', () => {
  it('is kept, given back, refused as S3 refuses, and deleted', async () => {
    const s3 = s3Client(ctx.server);
    const Bucket = bucketName('site');
    await s3.send(new CreateBucketCommand({ Bucket }));
    await expect(s3.send(new GetBucketWebsiteCommand({ Bucket }))).rejects.toMatchObject({ name: 'NoSuchWebsiteConfiguration', $metadata: { httpStatusCode: 404 } });
    await s3.send(new PutBucketWebsiteCommand({ Bucket, WebsiteConfiguration: SITE }));
    const got = await s3.send(new GetBucketWebsiteCommand({ Bucket }));
    expect({ IndexDocument: got.IndexDocument, ErrorDocument: got.ErrorDocument, RoutingRules: got.RoutingRules }).toEqual(SITE);

    const bothKeys = { ...SITE, RoutingRules: [{ Redirect: { ReplaceKeyWith: 'a', ReplaceKeyPrefixWith: 'b/' } }] };
    await expect(s3.send(new PutBucketWebsiteCommand({ Bucket, WebsiteConfiguration: bothKeys }))).rejects.toMatchObject({
      name: 'InvalidRequest', message: 'You can only define ReplaceKeyPrefix or ReplaceKey but not both.', $metadata: { httpStatusCode: 400 },
    });
    await expect(s3.send(new PutBucketWebsiteCommand({ Bucket, WebsiteConfiguration: { ErrorDocument: { Key: 'e.html' } } }))).rejects.toMatchObject({
      name: 'InvalidArgument', $metadata: { httpStatusCode: 400 },
    });
    // the refused ones changed nothing
    expect((await s3.send(new GetBucketWebsiteCommand({ Bucket }))).RoutingRules).toEqual(SITE.RoutingRules);

    await s3.send(new PutBucketWebsiteCommand({ Bucket, WebsiteConfiguration: { RedirectAllRequestsTo: { HostName: 'example.org', Protocol: 'https' } } }));
    const all = await s3.send(new GetBucketWebsiteCommand({ Bucket }));
    expect(all.RedirectAllRequestsTo).toEqual({ HostName: 'example.org', Protocol: 'https' });
    expect(all.IndexDocument).toBeUndefined();

    await s3.send(new DeleteBucketWebsiteCommand({ Bucket }));
    await expect(s3.send(new GetBucketWebsiteCommand({ Bucket }))).rejects.toMatchObject({ name: 'NoSuchWebsiteConfiguration' });
    await s3.send(new DeleteBucketWebsiteCommand({ Bucket }));
  });
});
