// Object ownership as AWS has it (issue 37; AWS *Controlling ownership of objects*): the owner of
// each object and upload follows the bucket's ownership controls when it is written, in ACLs,
// listings and reads. The scenario is boto3's (test/e2e/boto3/ownership.py), with two accounts.

import { describe, expect, it } from 'vitest';
import { testAccount } from './helpers/accounts.js';
import { runBoto3 } from './helpers/boto3.js';
import { bucketName } from './helpers/fixtures.js';
import { useTusk } from './helpers/lifecycle.js';

const writer = testAccount('writer', '222233334444');
const ctx = useTusk({ extraAccounts: [writer] });

describe('object ownership', () => {
  it('boto3: ObjectWriter, BucketOwnerPreferred with bucket-owner-full-control, BucketOwnerEnforced', async () => {
    const out = await runBoto3(ctx.server, 'ownership.py', {
      BUCKET: bucketName('owners'),
      WRITER_KEY: writer.accessKeyId,
      WRITER_SECRET: writer.secretAccessKey,
      WRITER_CANONICAL_ID: writer.canonicalId,
      WRITER_ACCOUNT_ID: writer.accountId,
    });
    expect(out.ok).toBe(true);
  }, 120_000);
});
