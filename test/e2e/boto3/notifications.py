# boto3 bucket notification scenario (AWS PutBucketNotificationConfiguration, *Event notification
# types*): S3's validation errors, then a configuration with a Queue, a Topic and a LambdaFunction
# destination and prefix/suffix filters, read back; then the changes that produce events: PUT,
# multipart complete, copy, tagging, delete, and a delete marker once versioning is on. Prints
# what the test needs to check the records the webhooks received.
import json, os

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

s3 = boto3.client(
    's3', endpoint_url=os.environ['TUSK_ENDPOINT'], region_name=os.environ['TUSK_REGION'],
    config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}),
)
bucket = os.environ['BUCKET']
arn = os.environ['ARN']
arn2 = os.environ['ARN2']


def expect_error(fn, code, status, message):
    try:
        fn()
    except ClientError as e:
        got = (e.response['Error']['Code'], e.response['ResponseMetadata']['HTTPStatusCode'], e.response['Error']['Message'])
        assert got == (code, status, message), got
        return
    raise AssertionError('expected %s' % code)


s3.create_bucket(Bucket=bucket)
assert 'QueueConfigurations' not in s3.get_bucket_notification_configuration(Bucket=bucket)

unknown = 'arn:tusk:sqs:%s:nosuch:webhook' % os.environ['TUSK_REGION']
expect_error(lambda: s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={
    'QueueConfigurations': [{'QueueArn': unknown, 'Events': ['s3:ObjectCreated:*']}]}),
    'InvalidArgument', 400, 'Unable to validate the following destination configurations')
expect_error(lambda: s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={
    'QueueConfigurations': [
        {'QueueArn': arn, 'Events': ['s3:ObjectCreated:*'], 'Filter': {'Key': {'FilterRules': [{'Name': 'prefix', 'Value': 'in/'}]}}},
        {'QueueArn': arn2, 'Events': ['s3:ObjectCreated:Put'], 'Filter': {'Key': {'FilterRules': [{'Name': 'prefix', 'Value': 'in/sub/'}]}}},
    ]}),
    'InvalidArgument', 400,
    'Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes are overlapping for the same event type.')
expect_error(lambda: s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={
    'QueueConfigurations': [{'QueueArn': arn, 'Events': ['s3:ObjectCreated:Get']}]}),
    'InvalidArgument', 400, 'The event is not supported for notifications')

config = {
    'QueueConfigurations': [{
        'Id': 'created', 'QueueArn': arn, 'Events': ['s3:ObjectCreated:*'],
        'Filter': {'Key': {'FilterRules': [{'Name': 'prefix', 'Value': 'in/'}, {'Name': 'suffix', 'Value': '.txt'}]}},
    }],
    'TopicConfigurations': [{
        'Id': 'removed', 'TopicArn': arn, 'Events': ['s3:ObjectRemoved:*'],
        'Filter': {'Key': {'FilterRules': [{'Name': 'prefix', 'Value': 'in/'}]}},
    }],
    'LambdaFunctionConfigurations': [{
        'Id': 'tags', 'LambdaFunctionArn': arn2, 'Events': ['s3:ObjectTagging:*'],
    }],
}
s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=config)
got = s3.get_bucket_notification_configuration(Bucket=bucket)
assert got['QueueConfigurations'] == [{
    'Id': 'created', 'QueueArn': arn, 'Events': ['s3:ObjectCreated:*'],
    'Filter': {'Key': {'FilterRules': [{'Name': 'Prefix', 'Value': 'in/'}, {'Name': 'Suffix', 'Value': '.txt'}]}},
}], got
assert got['TopicConfigurations'][0]['TopicArn'] == arn, got
assert got['LambdaFunctionConfigurations'] == [{'Id': 'tags', 'LambdaFunctionArn': arn2, 'Events': ['s3:ObjectTagging:*']}], got

out = {}
key = 'in/a b+c.txt'
out['put'] = s3.put_object(Bucket=bucket, Key=key, Body=b'hello')['ETag'].strip('"')
s3.put_object(Bucket=bucket, Key='out/ignored.txt', Body=b'x')   # prefix filtered out
s3.put_object(Bucket=bucket, Key='in/ignored.bin', Body=b'x')    # suffix filtered out
up = s3.create_multipart_upload(Bucket=bucket, Key='in/multi.txt')
part = s3.upload_part(Bucket=bucket, Key='in/multi.txt', UploadId=up['UploadId'], PartNumber=1, Body=b'm' * 1000)
out['multipart'] = s3.complete_multipart_upload(
    Bucket=bucket, Key='in/multi.txt', UploadId=up['UploadId'],
    MultipartUpload={'Parts': [{'PartNumber': 1, 'ETag': part['ETag']}]})['ETag'].strip('"')
s3.copy_object(Bucket=bucket, Key='in/copy.txt', CopySource={'Bucket': bucket, 'Key': key})
s3.put_object_tagging(Bucket=bucket, Key=key, Tagging={'TagSet': [{'Key': 'k', 'Value': 'v'}]})
s3.delete_object_tagging(Bucket=bucket, Key=key)
s3.delete_object(Bucket=bucket, Key='in/copy.txt')
s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Enabled'})
out['marker'] = s3.delete_object(Bucket=bucket, Key='in/multi.txt')['VersionId']
print(json.dumps(out))
