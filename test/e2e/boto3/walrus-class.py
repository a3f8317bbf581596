# boto3 with storage class WALRUS (README "S3 objects on Walrus"): botocore does not check
# StorageClass against its enum, so PutObject names the class as any other; every object reads
# back byte-identical, HEAD and the listings name the class, HEAD the blob id (the quilt's) and the
# quilt patch id of each small object.
import hashlib, json, os
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}, max_pool_connections=int(os.environ.get('THREADS', '8'))),
)
bucket = os.environ['BUCKET']
count = int(os.environ['COUNT'])
s3.create_bucket(Bucket=bucket)
bodies = {'small/%04d' % i: os.urandom(4096) for i in range(count)}


def put(key):
    s3.put_object(Bucket=bucket, Key=key, Body=bodies[key], StorageClass='WALRUS', ContentType='application/x-test')


def check(key):
    got = s3.get_object(Bucket=bucket, Key=key)
    assert got['Body'].read() == bodies[key], key
    assert got['StorageClass'] == 'WALRUS', got.get('StorageClass')
    headers = got['ResponseMetadata']['HTTPHeaders']
    return headers['x-tusk-walrus-blob-id'], headers.get('x-tusk-walrus-patch-id')


with ThreadPoolExecutor(int(os.environ.get('THREADS', '8'))) as pool:
    list(pool.map(put, bodies))
    ids = list(pool.map(check, bodies))

head = s3.head_object(Bucket=bucket, Key='small/0000')
assert head['StorageClass'] == 'WALRUS' and head['ContentLength'] == 4096
listed = s3.list_objects_v2(Bucket=bucket, Prefix='small/')['Contents']
assert len(listed) == count and all(o['StorageClass'] == 'WALRUS' and o['Size'] == 4096 for o in listed)
versions = s3.list_object_versions(Bucket=bucket, Prefix='small/')['Versions']
assert all(v['StorageClass'] == 'WALRUS' for v in versions)
print(json.dumps({'blobIds': [b for b, _ in ids], 'patchIds': [p for _, p in ids], 'md5': {k: hashlib.md5(v).hexdigest() for k, v in bodies.items()}}))
