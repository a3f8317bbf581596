import { S3Client, CreateBucketCommand, CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
const s3 = new S3Client({ endpoint: 'http://127.0.0.1:9913', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: process.env.TUSK_ACCESS_KEY_ID, secretAccessKey: process.env.TUSK_SECRET_ACCESS_KEY } });
const t = () => performance.now().toFixed(0);
await s3.send(new CreateBucketCommand({ Bucket: 'bkt1' }));
const key = randomBytes(32); const sseC = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') };
const c = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'bkt1', Key: 'k', ...sseC })); console.log(t(), 'created');
try { await s3.send(new UploadPartCommand({ Bucket: 'bkt1', Key: 'k', UploadId: c.UploadId, PartNumber: 1, Body: randomBytes(5 << 20) })); } catch (e) { console.log(t(), 'refused', e.name); }
const up = await s3.send(new UploadPartCommand({ Bucket: 'bkt1', Key: 'k', UploadId: c.UploadId, PartNumber: 1, Body: randomBytes(5 << 20), ...sseC })); console.log(t(), 'part1');
const up2 = await s3.send(new UploadPartCommand({ Bucket: 'bkt1', Key: 'k', UploadId: c.UploadId, PartNumber: 2, Body: randomBytes(70000), ...sseC })); console.log(t(), 'part2');
await s3.send(new CompleteMultipartUploadCommand({ Bucket: 'bkt1', Key: 'k', UploadId: c.UploadId, MultipartUpload: { Parts: [{ ETag: up.ETag, PartNumber: 1 }, { ETag: up2.ETag, PartNumber: 2 }] } })); console.log(t(), 'complete');
const g = await s3.send(new GetObjectCommand({ Bucket: 'bkt1', Key: 'k', ...sseC })); const b = await g.Body.transformToByteArray(); console.log(t(), 'get', b.length);
const r = await s3.send(new GetObjectCommand({ Bucket: 'bkt1', Key: 'k', Range: 'bytes=5242000-5243000', ...sseC })); console.log(t(), 'range', (await r.Body.transformToByteArray()).length);
