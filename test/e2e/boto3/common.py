# What the boto3 scenarios share: a client of the test server, and the code and status of a refusal.
import os

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def client(key, secret):
    return boto3.client(
        's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}),
    )


def error(call, **kw):
    try:
        call(**kw)
    except ClientError as e:
        return e.response['Error']['Code'], e.response['ResponseMetadata']['HTTPStatusCode']
    raise AssertionError('%s succeeded' % call.__name__)
