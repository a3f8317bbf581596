# boto3 SSE-KMS scenario (issue 37; AWS "Using server-side encryption with AWS KMS keys"): keys
# made through the admin API (signed with the root key), then PUT/GET/HEAD/copy/multipart with
# aws:kms by key id, ARN, alias and the account's default key; a disabled key makes its objects
# unreadable until it is enabled again; a rotated key reads old and new objects; pending deletion,
# an unknown key and another account's key are refused with AWS's errors, and nothing is stored.
import base64, hashlib, json, os, urllib.request, urllib.error

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from common import client, error

ENDPOINT = os.environ['TUSK_ENDPOINT']
REGION = os.environ['TUSK_REGION']
ROOT = Credentials(os.environ['AWS_ACCESS_KEY_ID'], os.environ['AWS_SECRET_ACCESS_KEY'])


def admin(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else b''
    req = AWSRequest(method=method, url='%s/tusk/admin/v1/%s' % (ENDPOINT, path), data=data,
                     headers={'x-amz-content-sha256': hashlib.sha256(data).hexdigest()})
    SigV4Auth(ROOT, 's3', REGION).add_auth(req)
    prepared = req.prepare()
    try:
        with urllib.request.urlopen(urllib.request.Request(prepared.url, data=data or None, headers=dict(prepared.headers), method=method)) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise AssertionError('admin %s %s: %s %s' % (method, path, e.code, e.read()))


def body_of(**kw):
    return s3.get_object(**kw)['Body'].read()


s3 = client(os.environ['AWS_ACCESS_KEY_ID'], os.environ['AWS_SECRET_ACCESS_KEY'])
other = client(os.environ['OTHER_KEY'], os.environ['OTHER_SECRET'])
bucket = os.environ['BUCKET']
s3.create_bucket(Bucket=bucket)
out = {}

key = admin('POST', 'kms/keys', {'description': 'e2e'})['key']
arn = key['Arn']
assert arn == 'arn:aws:kms:%s:%s:key/%s' % (REGION, key['AWSAccountId'], key['KeyId']), key
admin('PUT', 'kms/aliases/alias/e2e', {'keyId': key['KeyId']})

# PUT by id, ARN and alias: the response, GET and HEAD name the key's ARN
data = os.urandom(200_000)
for name, ref in (('by-id', key['KeyId']), ('by-arn', arn), ('by-alias', 'alias/e2e')):
    put = s3.put_object(Bucket=bucket, Key=name, Body=data, ServerSideEncryption='aws:kms', SSEKMSKeyId=ref)
    assert (put['ServerSideEncryption'], put['SSEKMSKeyId']) == ('aws:kms', arn), put
    got = s3.get_object(Bucket=bucket, Key=name, Range='bytes=65530-65545')
    assert (got['ServerSideEncryption'], got['SSEKMSKeyId']) == ('aws:kms', arn)
    assert got['Body'].read() == data[65530:65546]
    head = s3.head_object(Bucket=bucket, Key=name)
    assert (head['ServerSideEncryption'], head['SSEKMSKeyId'], head['ContentLength']) == ('aws:kms', arn, len(data)), head
assert body_of(Bucket=bucket, Key='by-id') == data

# no key id: the account's default key (alias/aws/s3); the context and the bucket key are echoed
ctx = 'eyJ0ZWFtIjoiYSJ9'  # {"team":"a"}
put = s3.put_object(Bucket=bucket, Key='default', Body=b'dflt', ServerSideEncryption='aws:kms', SSEKMSEncryptionContext=ctx, BucketKeyEnabled=True)
default_arn = put['SSEKMSKeyId']
assert default_arn.startswith('arn:aws:kms:%s:%s:key/' % (REGION, key['AWSAccountId'])) and default_arn != arn
assert put['BucketKeyEnabled'] is True
assert json.loads(base64.b64decode(put['SSEKMSEncryptionContext']))['team'] == 'a'
assert admin('GET', 'kms/keys/alias/aws/s3')['key']['Arn'] == default_arn
assert body_of(Bucket=bucket, Key='default') == b'dflt'
assert s3.head_object(Bucket=bucket, Key='default')['BucketKeyEnabled'] is True

# copy: re-encrypted under the key asked for, or in clear
copy = s3.copy_object(Bucket=bucket, Key='copy', CopySource={'Bucket': bucket, 'Key': 'default'}, ServerSideEncryption='aws:kms', SSEKMSKeyId=arn)
assert (copy['ServerSideEncryption'], copy['SSEKMSKeyId']) == ('aws:kms', arn)
assert body_of(Bucket=bucket, Key='copy') == b'dflt'
s3.copy_object(Bucket=bucket, Key='clear-copy', CopySource={'Bucket': bucket, 'Key': 'by-id'})
assert 'ServerSideEncryption' not in s3.head_object(Bucket=bucket, Key='clear-copy')
assert body_of(Bucket=bucket, Key='clear-copy') == data

# multipart: the parts inherit the upload's key
mp = s3.create_multipart_upload(Bucket=bucket, Key='multi', ServerSideEncryption='aws:kms', SSEKMSKeyId='alias/e2e')
assert (mp['ServerSideEncryption'], mp['SSEKMSKeyId']) == ('aws:kms', arn)
part1, part2 = os.urandom(5 << 20), os.urandom(1000)
p1 = s3.upload_part(Bucket=bucket, Key='multi', UploadId=mp['UploadId'], PartNumber=1, Body=part1)
assert p1['SSEKMSKeyId'] == arn
p2 = s3.upload_part(Bucket=bucket, Key='multi', UploadId=mp['UploadId'], PartNumber=2, Body=part2)
done = s3.complete_multipart_upload(Bucket=bucket, Key='multi', UploadId=mp['UploadId'], MultipartUpload={'Parts': [
    {'PartNumber': 1, 'ETag': p1['ETag']}, {'PartNumber': 2, 'ETag': p2['ETag']}]})
assert (done['ServerSideEncryption'], done['SSEKMSKeyId']) == ('aws:kms', arn)
assert body_of(Bucket=bucket, Key='multi') == part1 + part2
assert body_of(Bucket=bucket, Key='multi', Range='bytes=%d-%d' % ((5 << 20) - 5, (5 << 20) + 4)) == part1[-5:] + part2[:5]

# an unknown key, a malformed context, another account's key: refused, nothing stored
assert error(s3.put_object, Bucket=bucket, Key='nokey', Body=b'x', ServerSideEncryption='aws:kms', SSEKMSKeyId='no-such-key') == ('KMS.NotFoundException', 400)
assert error(s3.put_object, Bucket=bucket, Key='nokey', Body=b'x', ServerSideEncryption='aws:kms', SSEKMSEncryptionContext='bm90IGpzb24=') == ('InvalidArgument', 400)
other_bucket = bucket + '-other'
other.create_bucket(Bucket=other_bucket)
assert error(other.put_object, Bucket=other_bucket, Key='nokey', Body=b'x', ServerSideEncryption='aws:kms', SSEKMSKeyId=arn) == ('AccessDenied', 403)
assert error(s3.head_object, Bucket=bucket, Key='nokey') == ('404', 404)

# disabled: unreadable (and unusable) until enabled again
admin('POST', 'kms/keys/%s/disable' % key['KeyId'], {})
assert error(s3.get_object, Bucket=bucket, Key='by-id') == ('KMS.DisabledException', 400)
assert error(s3.get_object, Bucket=bucket, Key='multi') == ('KMS.DisabledException', 400)
assert error(s3.put_object, Bucket=bucket, Key='while-disabled', Body=b'x', ServerSideEncryption='aws:kms', SSEKMSKeyId=arn) == ('KMS.DisabledException', 400)
assert error(s3.copy_object, Bucket=bucket, Key='copy2', CopySource={'Bucket': bucket, 'Key': 'by-id'}) == ('KMS.DisabledException', 400)
assert body_of(Bucket=bucket, Key='default') == b'dflt'  # another key's objects still read
admin('POST', 'kms/keys/%s/enable' % key['KeyId'], {})
assert body_of(Bucket=bucket, Key='by-id') == data

# rotation: objects of the old version and of the new one both read
rotated = admin('POST', 'kms/keys/%s/rotate' % key['KeyId'], {})['key']
assert rotated['KeyVersions'] == 2
s3.put_object(Bucket=bucket, Key='after-rotation', Body=b'new', ServerSideEncryption='aws:kms', SSEKMSKeyId=arn)
assert body_of(Bucket=bucket, Key='after-rotation') == b'new'
assert body_of(Bucket=bucket, Key='by-arn') == data
assert body_of(Bucket=bucket, Key='multi') == part1 + part2

# pending deletion: refused until cancelled (the key comes back disabled, as AWS)
pending = admin('POST', 'kms/keys/%s/schedule-deletion' % key['KeyId'], {'pendingWindowDays': 7})['key']
assert pending['KeyState'] == 'PendingDeletion' and 'DeletionDate' in pending
assert error(s3.get_object, Bucket=bucket, Key='by-id') == ('KMS.KMSInvalidStateException', 400)
assert admin('POST', 'kms/keys/%s/cancel-deletion' % key['KeyId'], {})['key']['KeyState'] == 'Disabled'
admin('POST', 'kms/keys/%s/enable' % key['KeyId'], {})
assert body_of(Bucket=bucket, Key='after-rotation') == b'new'

# bucket default encryption with a KMS key
s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={'Rules': [{'ApplyServerSideEncryptionByDefault': {'SSEAlgorithm': 'aws:kms', 'KMSMasterKeyID': 'alias/e2e'}}]})
conf = s3.get_bucket_encryption(Bucket=bucket)['ServerSideEncryptionConfiguration']['Rules'][0]['ApplyServerSideEncryptionByDefault']
assert conf == {'SSEAlgorithm': 'aws:kms', 'KMSMasterKeyID': 'alias/e2e'}, conf
put = s3.put_object(Bucket=bucket, Key='by-bucket-default', Body=b'bd')
assert (put['ServerSideEncryption'], put['SSEKMSKeyId']) == ('aws:kms', arn)
assert body_of(Bucket=bucket, Key='by-bucket-default') == b'bd'

out['ok'] = True
out['arn'] = arn
print(json.dumps(out))
