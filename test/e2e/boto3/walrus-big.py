# boto3 puts one large object in storage class WALRUS from a file (README "S3 objects on Walrus"):
# a single PutObject, as put_object sends a body of any size; prints its ETag.
import json, os

import boto3
from botocore.config import Config

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}, read_timeout=600),
)
with open(os.environ['BODY_FILE'], 'rb') as body:
    put = s3.put_object(Bucket=os.environ['BUCKET'], Key=os.environ['KEY'], Body=body, StorageClass='WALRUS')
print(json.dumps({'etag': put['ETag']}))
