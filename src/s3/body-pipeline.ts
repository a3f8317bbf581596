// The body half of PutObject and UploadPart (style.md §6): decoded chunks are hashed (one fused
// pass) and written to their reserved extent at once, then the payload SHA-256, Content-MD5 and
// the flexible checksum are verified. The caller commits (or aborts) the writer afterwards.

import { contentSha256MismatchError } from './sigv4/index.js';
import { digestsNeeded, verifyChecksums, type ChecksumPlan, type DigestName, type DigestSet } from './checksums.js';
import type { S3Context } from './context.js';
import type { ChecksumAlgorithm, StoredChecksum } from './object-attrs.js';
import type { RequestBody } from './request-body.js';
import type { BodyWriter } from '../store/types.js';

/** Body bytes of one request being hashed and written at once: keeps the disk and the hasher busy, bounds memory. */
const PIPELINE_WINDOW = 4 << 20;

export interface ReceivedBody {
  digests: DigestSet;
  /** the verified checksum: the client's, or `fallback` computed by the server */
  checksum: StoredChecksum;
}

export async function receiveBody(
  ctx: S3Context,
  body: RequestBody,
  plan: ChecksumPlan,
  writer: Pick<BodyWriter<unknown, unknown>, 'write'>,
  fallback?: ChecksumAlgorithm,
): Promise<ReceivedBody> {
  const hasher = ctx.services.digester.create(digestsNeeded(plan, body.expectedSha256 !== undefined, fallback));
  // Chunks are hashed and written while the next ones arrive; both keep chunk order on their own
  // (the hasher queues its updates, the writer places each chunk at its offset when called).
  const inFlight: Array<{ done: Promise<unknown>; bytes: number }> = [];
  let inFlightBytes = 0;
  for (;;) {
    const chunk = await body.next();
    if (!chunk) break;
    const done = Promise.all([hasher.update(chunk), writer.write(chunk)]);
    done.catch(() => undefined); // awaited below; this only keeps an early failure from being "unhandled"
    inFlight.push({ done, bytes: chunk.length });
    inFlightBytes += chunk.length;
    while (inFlightBytes > PIPELINE_WINDOW) {
      const oldest = inFlight.shift()!;
      inFlightBytes -= oldest.bytes;
      await oldest.done;
    }
  }
  await Promise.all(inFlight.map((c) => c.done));
  const trailers = body.finish();
  const digests = hasher.digest();
  if (body.expectedSha256 !== undefined && digests.sha256!.toString('hex') !== body.expectedSha256) {
    throw contentSha256MismatchError(body.expectedSha256, digests.sha256!.toString('hex'));
  }
  return { digests, checksum: verifyChecksums(plan, digests, trailers, fallback) };
}

/** Hashes a body to its end (a copy asking for another checksum algorithm of its source). */
export async function hashBody(ctx: S3Context, body: RequestBody, need: ReadonlySet<DigestName>): Promise<DigestSet> {
  const hasher = ctx.services.digester.create(need);
  for (let chunk = await body.next(); chunk; chunk = await body.next()) await hasher.update(chunk);
  return hasher.digest();
}
