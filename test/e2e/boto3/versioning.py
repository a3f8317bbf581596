# boto3 versioning scenario (s3.md §3.0.7, §2.14): three versions read by id, a delete marker,
# S3's listing order, a permanent delete, the suspended bucket's null version, DeleteBucket refused
# until every version and marker is gone; then MFA delete with a missing, wrong, reused and valid
# code. TOTP computed here independently of the server (RFC 6238, HMAC-SHA1, 30 s, 6 digits).
import base64, hashlib, hmac, json, os, struct, sys, time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}),
)


def code_of(e):
    return e.response['Error']['Code'], e.response['ResponseMetadata']['HTTPStatusCode'], e.response['Error'].get('Message')


def expect_error(fn, code, status, message=None):
    try:
        fn()
    except ClientError as e:
        got = code_of(e)
        assert got[0] == code and got[1] == status, got
        if message is not None:
            assert got[2] == message, got
        return
    raise AssertionError('expected %s' % code)


def totp(secret_b32, step):
    key = base64.b32decode(secret_b32 + '=' * (-len(secret_b32) % 8))
    mac = hmac.new(key, struct.pack('>Q', step), hashlib.sha1).digest()
    off = mac[-1] & 0x0F
    return '%06d' % ((struct.unpack('>I', mac[off:off + 4])[0] & 0x7FFFFFFF) % 1000000)


def versions(bucket):
    out = s3.list_object_versions(Bucket=bucket)
    entries = [('V', v['Key'], v['VersionId'], v['IsLatest'], v['LastModified']) for v in out.get('Versions', [])]
    entries += [('M', m['Key'], m['VersionId'], m['IsLatest'], m['LastModified']) for m in out.get('DeleteMarkers', [])]
    return entries


bucket = os.environ['BUCKET']
key = 'photos/2025 summer+ü.jpg'
s3.create_bucket(Bucket=bucket)
s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Enabled'})
assert s3.get_bucket_versioning(Bucket=bucket)['Status'] == 'Enabled'
ids = [s3.put_object(Bucket=bucket, Key=key, Body=b)['VersionId'] for b in (b'v1', b'v2', b'v3')]
assert len(set(ids)) == 3
for vid, body in zip(ids, (b'v1', b'v2', b'v3')):
    assert s3.get_object(Bucket=bucket, Key=key, VersionId=vid)['Body'].read() == body
marker = s3.delete_object(Bucket=bucket, Key=key)
assert marker['DeleteMarker'] is True
try:
    s3.get_object(Bucket=bucket, Key=key)
    raise AssertionError('marker not honoured')
except ClientError as e:
    assert code_of(e)[:2] == ('NoSuchKey', 404)
    assert e.response['ResponseMetadata']['HTTPHeaders'].get('x-amz-delete-marker') == 'true'
# paginator over ListObjectVersions, one entry per page
pages = s3.get_paginator('list_object_versions').paginate(Bucket=bucket, PaginationConfig={'PageSize': 1})
paged = [v['VersionId'] for p in pages for v in p.get('Versions', []) + p.get('DeleteMarkers', [])]
assert sorted(paged) == sorted(ids + [marker['VersionId']]), paged
listed = s3.list_object_versions(Bucket=bucket)
assert [v['VersionId'] for v in listed['Versions']] == ids[::-1]
assert [(m['VersionId'], m['IsLatest']) for m in listed['DeleteMarkers']] == [(marker['VersionId'], True)]
s3.delete_object(Bucket=bucket, Key=key, VersionId=ids[0])
expect_error(lambda: s3.get_object(Bucket=bucket, Key=key, VersionId=ids[0]), 'NoSuchVersion', 404)
s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Suspended'})
s3.put_object(Bucket=bucket, Key=key, Body=b'n1')
s3.put_object(Bucket=bucket, Key=key, Body=b'n2')
assert s3.get_object(Bucket=bucket, Key=key, VersionId='null')['Body'].read() == b'n2'
assert [(k, v, latest) for k, _, v, latest, _ in versions(bucket) if k == 'V'] == [('V', 'null', True), ('V', ids[2], False), ('V', ids[1], False)]
expect_error(lambda: s3.delete_bucket(Bucket=bucket), 'BucketNotEmpty', 409)

# MFA delete: the device was provisioned by `tusk mfa create` for the root account
serial, secret = os.environ['MFA_SERIAL'], os.environ['MFA_SECRET']
while time.time() % 30 > 22:  # keep the three codes below inside one ±1-step window
    time.sleep(1)
step = int(time.time() // 30)
older, current, newer = (totp(secret, s) for s in (step - 1, step, step + 1))
wrong = next(c for c in ('%06d' % n for n in range(1000000)) if c not in (older, current, newer))
s3.put_bucket_versioning(Bucket=bucket, MFA='%s %s' % (serial, older),
                         VersioningConfiguration={'Status': 'Enabled', 'MFADelete': 'Enabled'})
assert s3.get_bucket_versioning(Bucket=bucket)['MFADelete'] == 'Enabled'
expect_error(lambda: s3.delete_object(Bucket=bucket, Key=key, VersionId=ids[1]), 'AccessDenied', 403,
             'Mfa Authentication must be used for this request')
expect_error(lambda: s3.delete_object(Bucket=bucket, Key=key, VersionId=ids[1], MFA='%s %s' % (serial, wrong)),
             'AccessDenied', 403, 'The provided MFA token is invalid')
s3.delete_object(Bucket=bucket, Key=key, VersionId=ids[1], MFA='%s %s' % (serial, current))
expect_error(lambda: s3.delete_object(Bucket=bucket, Key=key, VersionId=ids[2], MFA='%s %s' % (serial, current)),
             'AccessDenied', 403, 'The provided MFA token is invalid')
expect_error(lambda: s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Suspended'}),
             'AccessDenied', 403)
# a delete without a version id only adds a marker: no MFA needed
s3.delete_object(Bucket=bucket, Key=key)
s3.put_bucket_versioning(Bucket=bucket, MFA='%s %s' % (serial, newer),
                         VersioningConfiguration={'Status': 'Enabled', 'MFADelete': 'Disabled'})
for _, k, vid, _, _ in versions(bucket):
    s3.delete_object(Bucket=bucket, Key=k, VersionId=vid)
s3.delete_bucket(Bucket=bucket)
print(json.dumps({'ok': True, 'versions': ids}))
