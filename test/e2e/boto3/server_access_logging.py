# boto3 server access logging scenario (AWS PutBucketLogging, *Amazon S3 server access log
# format*): the refusals of a target that does not exist or does not let log delivery write, a
# configuration read back, the requests to log (DeleteObjects among them), then the log objects awaited in the target bucket,
# every line parsed with a regular expression of AWS's format. Debian's botocore (1.29) predates
# TargetObjectKeyFormat: the test sets the partitioned format with raw requests. Prints the parsed
# records and the log object keys.
import json, os, re, time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}),
)
src, part, logs = os.environ['SRC'], os.environ['PART'], os.environ['LOGS']
KEY = 'dir/a b+c.txt'

RECORD = re.compile(
    r'^(\S+) (\S+) \[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} \+0000)\] (\S+) (\S+) (\S+) (\S+) (\S+) "((?:[^"\\]|\\.)*)" (\d{3}) (\S+) (\S+) (\S+) (\S+) (\S+) '
    r'"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)$')
FIELDS = ['owner', 'bucket', 'time', 'ip', 'requester', 'requestId', 'operation', 'key', 'uri', 'status', 'error', 'bytesSent',
          'objectSize', 'totalTime', 'turnAround', 'referer', 'userAgent', 'versionId', 'hostId', 'sigVersion', 'cipher', 'authType',
          'host', 'tls', 'accessPoint', 'aclRequired']


def expect_error(fn, code):
    try:
        fn()
    except ClientError as e:
        assert e.response['Error']['Code'] == code, e.response['Error']
        return
    raise AssertionError('expected %s' % code)


for b in (src, logs):
    s3.create_bucket(Bucket=b)
assert 'LoggingEnabled' not in s3.get_bucket_logging(Bucket=src)

enabled = {'TargetBucket': logs, 'TargetPrefix': 'simple/'}
expect_error(lambda: s3.put_bucket_logging(Bucket=src, BucketLoggingStatus={'LoggingEnabled': {**enabled, 'TargetBucket': logs + '-nosuch'}}),
             'InvalidTargetBucketForLogging')
# no policy and no ACL grant on the target yet
expect_error(lambda: s3.put_bucket_logging(Bucket=src, BucketLoggingStatus={'LoggingEnabled': enabled}), 'InvalidTargetBucketForLogging')

s3.put_bucket_policy(Bucket=logs, Policy=json.dumps({'Version': '2012-10-17', 'Statement': [{
    'Sid': 'S3ServerAccessLogsPolicy', 'Effect': 'Allow', 'Principal': {'Service': 'logging.s3.amazonaws.com'},
    'Action': 's3:PutObject', 'Resource': 'arn:aws:s3:::%s/*' % logs,
    'Condition': {'ArnLike': {'aws:SourceArn': ['arn:aws:s3:::%s' % src, 'arn:aws:s3:::%s' % part]}}}]}))
s3.put_bucket_logging(Bucket=src, BucketLoggingStatus={'LoggingEnabled': enabled})
got = s3.get_bucket_logging(Bucket=src)['LoggingEnabled']
assert {k: got[k] for k in ('TargetBucket', 'TargetPrefix')} == enabled, got

# the requests to log
put = s3.put_object(Bucket=src, Key=KEY, Body=b'hello')
s3.get_object(Bucket=src, Key=KEY)['Body'].read()
expect_error(lambda: s3.head_object(Bucket=src, Key='missing'), '404')
s3.list_objects_v2(Bucket=src)
s3.delete_object(Bucket=src, Key=KEY)
# DeleteObjects: two objects deleted, a key that is not there, a malformed version id (an error)
for k in ('batch/1', 'batch/2 x'):
    s3.put_object(Bucket=src, Key=k, Body=b'abc')
multi = s3.delete_objects(Bucket=src, Delete={'Objects': [
    {'Key': 'batch/1'}, {'Key': 'batch/2 x'}, {'Key': 'batch/missing'}, {'Key': 'batch/1', 'VersionId': 'not-a-version'}]})
assert [e['Code'] for e in multi.get('Errors', [])] == ['NoSuchVersion'], multi

records, keys = [], []
deadline = time.time() + 30
while time.time() < deadline:
    keys = [o['Key'] for o in s3.list_objects_v2(Bucket=logs, Prefix='simple/').get('Contents', [])]
    lines = []
    for k in keys:
        lines += s3.get_object(Bucket=logs, Key=k)['Body'].read().decode().splitlines()
    # with front-end threads the two may come in log objects of their own
    if all(any(op in l for l in lines) for op in (' REST.DELETE.OBJECT ', ' REST.POST.MULTI_OBJECT_DELETE ')):
        break
    time.sleep(0.3)
for line in lines:
    m = RECORD.match(line)
    assert m, 'not AWS format: %r' % line
    records.append(dict(zip(FIELDS, m.groups())))
print(json.dumps({'records': records, 'keys': keys, 'etag': put['ETag']}))
