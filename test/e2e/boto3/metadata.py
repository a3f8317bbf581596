# boto3 metadata scenario: put_object with 60 x-amz-meta-* entries (S3 allows 2 KiB of them in 8 KiB
# of headers) reads back whole; non-ASCII values, which botocore sends as their UTF-8 bytes once its
# client-side ASCII check (botocore handlers.validate_ascii_metadata) is turned off, read back as
# botocore decodes header bytes: Latin-1 text as it was sent, other text as its UTF-8 bytes.
import json, os

import boto3
from botocore.config import Config
from botocore.handlers import validate_ascii_metadata

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}),
)
bucket = os.environ['BUCKET']
s3.create_bucket(Bucket=bucket)

many = {'entry-%02d' % i: 'value %02d of sixty' % i for i in range(60)}
s3.put_object(Bucket=bucket, Key='many', Body=b'sixty entries', Metadata=many)
got = s3.head_object(Bucket=bucket, Key='many')['Metadata']
assert got == many, (len(got), sorted(set(many) ^ set(got)))

s3.meta.events.unregister('before-parameter-build.s3.PutObject', validate_ascii_metadata)
latin1 = {'city': 'Zürich', 'word': 'café', 'mixed': 'naïve — ÿ ß'.replace('—', '-'), 'edge': 'é at both ends é'}
s3.put_object(Bucket=bucket, Key='latin1', Body=b'x', Metadata=latin1)
got = s3.head_object(Bucket=bucket, Key='latin1')['Metadata']
assert got == latin1, got
got = s3.get_object(Bucket=bucket, Key='latin1')['Metadata']
assert got == latin1, got

beyond = {'kanji': '日本語', 'emoji': '🐘'}
s3.put_object(Bucket=bucket, Key='beyond', Body=b'x', Metadata=beyond)
got = s3.head_object(Bucket=bucket, Key='beyond')['Metadata']
assert {k: v.encode('latin-1') for k, v in got.items()} == {k: v.encode('utf-8') for k, v in beyond.items()}, got

print(json.dumps({'ok': True, 'many': len(many)}))
