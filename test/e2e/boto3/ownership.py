# boto3 object-ownership scenario (AWS *Controlling ownership of objects*): another account writes
# into the owner's bucket through a bucket policy. ObjectWriter: the writer owns its objects and
# uploads (the bucket owner cannot read them unless their ACL lets it); BucketOwnerPreferred: the
# bucket owner owns what arrives with bucket-owner-full-control; BucketOwnerEnforced: the bucket
# owner owns everything, and an ACL other than the bucket owner's full control is 400.
import json, os

from common import client, error

owner = client(os.environ['AWS_ACCESS_KEY_ID'], os.environ['AWS_SECRET_ACCESS_KEY'])
writer = client(os.environ['WRITER_KEY'], os.environ['WRITER_SECRET'])
WRITER_ID = os.environ['WRITER_CANONICAL_ID']
WRITER_ACCOUNT = os.environ['WRITER_ACCOUNT_ID']
bucket = os.environ['BUCKET']


def obj_owner(key, who=writer):
    return who.get_object_acl(Bucket=bucket, Key=key)['Owner']['ID']


owner.create_bucket(Bucket=bucket)
OWNER_ID = owner.get_bucket_acl(Bucket=bucket)['Owner']['ID']
assert OWNER_ID != WRITER_ID
owner.put_bucket_policy(Bucket=bucket, Policy=json.dumps({'Version': '2012-10-17', 'Statement': [{
    'Effect': 'Allow', 'Principal': {'AWS': 'arn:aws:iam::%s:root' % WRITER_ACCOUNT},
    'Action': ['s3:PutObject', 's3:GetObject', 's3:GetObjectAcl', 's3:PutObjectAcl', 's3:ListBucket',
               's3:ListBucketMultipartUploads', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
    'Resource': ['arn:aws:s3:::%s' % bucket, 'arn:aws:s3:::%s/*' % bucket],
}]}))
out = {}


def ownership(value):
    owner.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={'Rules': [{'ObjectOwnership': value}]})


# --- ObjectWriter: the writer owns what it writes
ownership('ObjectWriter')
writer.put_object(Bucket=bucket, Key='by-writer', Body=b'mine')
assert obj_owner('by-writer') == WRITER_ID
assert writer.get_object(Bucket=bucket, Key='by-writer')['Body'].read() == b'mine'
# the bucket owner's policy grants nothing on an object it does not own; the object's ACL decides
assert error(owner.get_object, Bucket=bucket, Key='by-writer') == ('AccessDenied', 403)
writer.put_object(Bucket=bucket, Key='shared', Body=b'both', ACL='bucket-owner-full-control')
assert obj_owner('shared') == WRITER_ID
grants = writer.get_object_acl(Bucket=bucket, Key='shared')['Grants']
assert {(g['Grantee']['ID'], g['Permission']) for g in grants} == {(WRITER_ID, 'FULL_CONTROL'), (OWNER_ID, 'FULL_CONTROL')}, grants
assert owner.get_object(Bucket=bucket, Key='shared')['Body'].read() == b'both'
owner.put_object(Bucket=bucket, Key='by-owner', Body=b'owner')
listed = {o['Key']: o['Owner']['ID'] for o in owner.list_objects_v2(Bucket=bucket, FetchOwner=True)['Contents']}
assert listed == {'by-writer': WRITER_ID, 'shared': WRITER_ID, 'by-owner': OWNER_ID}, listed
upload = writer.create_multipart_upload(Bucket=bucket, Key='upload')['UploadId']
[u] = owner.list_multipart_uploads(Bucket=bucket)['Uploads']
assert (u['Initiator']['ID'], u['Owner']['ID']) == (WRITER_ID, WRITER_ID), u
parts = writer.list_parts(Bucket=bucket, Key='upload', UploadId=upload)
assert (parts['Initiator']['ID'], parts['Owner']['ID']) == (WRITER_ID, WRITER_ID), parts
writer.upload_part(Bucket=bucket, Key='upload', UploadId=upload, PartNumber=1, Body=b'part')
writer.complete_multipart_upload(Bucket=bucket, Key='upload', UploadId=upload,
                                 MultipartUpload={'Parts': [{'PartNumber': 1, 'ETag': writer.list_parts(Bucket=bucket, Key='upload', UploadId=upload)['Parts'][0]['ETag']}]})
assert obj_owner('upload') == WRITER_ID

# --- BucketOwnerPreferred: bucket-owner-full-control hands the object to the bucket owner
ownership('BucketOwnerPreferred')
writer.put_object(Bucket=bucket, Key='handed-over', Body=b'yours', ACL='bucket-owner-full-control')
assert obj_owner('handed-over', owner) == OWNER_ID
assert owner.get_object(Bucket=bucket, Key='handed-over')['Body'].read() == b'yours'
writer.put_object(Bucket=bucket, Key='kept', Body=b'still mine')
assert obj_owner('kept') == WRITER_ID
upload = writer.create_multipart_upload(Bucket=bucket, Key='upload2', ACL='bucket-owner-full-control')['UploadId']
u = [u for u in owner.list_multipart_uploads(Bucket=bucket)['Uploads'] if u['UploadId'] == upload][0]
assert (u['Initiator']['ID'], u['Owner']['ID']) == (WRITER_ID, OWNER_ID), u
writer.abort_multipart_upload(Bucket=bucket, Key='upload2', UploadId=upload)
# ownership is decided at write time: the earlier object keeps its owner
assert obj_owner('by-writer') == WRITER_ID
versions = {v['Key']: v['Owner']['ID'] for v in owner.list_object_versions(Bucket=bucket)['Versions']}
assert versions['handed-over'] == OWNER_ID and versions['kept'] == WRITER_ID, versions

# --- BucketOwnerEnforced: the bucket owner owns every object, older ones too; ACLs are refused
ownership('BucketOwnerEnforced')
assert error(writer.put_object, Bucket=bucket, Key='acl', Body=b'x', ACL='private') == ('AccessControlListNotSupported', 400)
assert error(writer.put_object, Bucket=bucket, Key='acl', Body=b'x', ACL='public-read') == ('AccessControlListNotSupported', 400)
assert error(writer.create_multipart_upload, Bucket=bucket, Key='acl', ACL='private') == ('AccessControlListNotSupported', 400)
writer.put_object(Bucket=bucket, Key='enforced', Body=b'x', ACL='bucket-owner-full-control')
writer.put_object(Bucket=bucket, Key='enforced-plain', Body=b'x')
owner.put_object(Bucket=bucket, Key='owner-private', Body=b'x', ACL='private')
assert obj_owner('enforced', owner) == OWNER_ID and obj_owner('enforced-plain', owner) == OWNER_ID
assert obj_owner('by-writer', owner) == OWNER_ID
assert owner.get_object(Bucket=bucket, Key='by-writer')['Body'].read() == b'mine'
listed = {o['Key'] for o in owner.list_objects_v2(Bucket=bucket, FetchOwner=True)['Contents'] if o['Owner']['ID'] != OWNER_ID}
assert listed == set(), listed
keys = sorted(o['Key'] for o in owner.list_objects_v2(Bucket=bucket)['Contents'])
assert 'acl' not in keys, keys

print(json.dumps({'ok': True}))
