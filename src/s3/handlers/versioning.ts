// Put/GetBucketVersioning (s3.md §3.9, §4.6) with MFA delete (§2.14).

import { bucketOf, type S3Context } from '../context.js';
import { S3Error } from '../errors/errors.js';
import { checkMfa, mfaDeleteEnabled } from '../mfa-delete.js';
import type { MfaParams } from '../routes/deletes.js';
import { send, sendXml } from '../respond.js';
import { doc, el } from '../xml.js';
import { xmlTextOf } from '../xml-input.js';
import { readXmlRequest } from '../xml-request.js';

function illegal(message?: string): S3Error {
  return new S3Error('IllegalVersioningConfigurationException', {}, message ? { message } : {});
}

export async function handlePutBucketVersioning(ctx: S3Context, params: MfaParams): Promise<void> {
  const bucket = bucketOf(ctx);
  const config = await readXmlRequest(ctx, 'VersioningConfiguration');
  const status = xmlTextOf(config['Status']);
  if (status !== 'Enabled' && status !== 'Suspended') throw illegal();
  const mfaDelete = xmlTextOf(config['MfaDelete']);
  if (mfaDelete !== undefined && mfaDelete !== 'Enabled' && mfaDelete !== 'Disabled') {
    throw illegal('The MfaDelete element must be Enabled or Disabled');
  }
  // a bucket with object lock stays Enabled (s3.md §3.0.7)
  const lockRefusal = () =>
    new S3Error('InvalidBucketState', {}, {
      message: 'An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.',
    });
  if (bucket.objectLock && status === 'Suspended') throw lockRefusal();
  const vc = bucket.versionControl ?? {};
  const changesMfa = mfaDelete !== undefined && mfaDelete !== (vc.mfaDelete ?? 'Disabled');
  const changesStatus = status !== bucket.versioning;
  // §2.14: turning MfaDelete on (or off) needs the owner's device and a code from it, and so does
  // any change while it is on; `MfaDelete: Disabled` on a bucket where it is off (what many tools
  // send with every versioning change) needs neither
  if (mfaDelete === 'Enabled' && !ctx.services.mfa.hasDevice(bucket.owner)) {
    throw new S3Error('InvalidRequest', {}, {
      message: 'MFA delete cannot be enabled: no MFA device is configured for the bucket owner',
    });
  }
  checkMfa(ctx, bucket, params.mfa, changesMfa || (mfaDeleteEnabled(bucket) && (changesStatus || mfaDelete !== undefined)));
  let refused = false;
  await ctx.services.store.updateBucket(bucket.name, (current) => {
    // checked again against the committed record: object lock may have come meanwhile
    if (current.objectLock && status === 'Suspended') return ((refused = true), current);
    return {
      ...current,
      versioning: status,
      ...(mfaDelete !== undefined ? { versionControl: { ...current.versionControl, mfaDelete } } : {}),
    };
  });
  if (refused) throw lockRefusal();
  send(ctx, 200);
}

export async function handleGetBucketVersioning(ctx: S3Context): Promise<void> {
  const bucket = bucketOf(ctx);
  const mfaDelete = bucket.versionControl?.mfaDelete;
  let body = '';
  if (bucket.versioning !== 'Unversioned') body += el('Status', bucket.versioning);
  if (mfaDelete) body += el('MfaDelete', mfaDelete);
  sendXml(ctx, doc('VersioningConfiguration', body));
}
