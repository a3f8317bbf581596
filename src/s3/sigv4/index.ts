// Public surface of SigV4 authentication (s3.md §2.1–§2.10).
//
// Use in the request path (s3.md §1.10):
//   const auth = authenticate(head, ctx);               // step 3, before the body; throws S3Error
//   const headers = auth.kind === 'signed' ? { ...auth.hoistedHeaders, ...head.headers } : head.headers;
//   … route, validate, authorize …
//   const body = describeBody(head, auth);              // body-carrying operations only
//   if (body.encoding === 'aws-chunked') {
//     const decoder = new AwsChunkedDecoder({
//       decodedLength: body.decodedLength,
//       trailer: body.declaredTrailer,
//       signed: auth.kind === 'signed' && auth.payload.kind === 'streaming-signed' ? auth : undefined,
//     });
//     onChunk: decoder.push(chunk, (slice) => digestAndWrite(slice));
//     onEnd:   const { trailers } = decoder.end();     // then verify trailers[body.declaredTrailer]
//   } else if (auth.kind === 'signed' && auth.payload.kind === 'sha256' && sha256 !== auth.payload.expectedHex) {
//     throw contentSha256MismatchError(auth.payload.expectedHex, sha256);
//   }

export { authenticate } from './authenticate.js';
export { describeBody, storedContentEncoding } from './body-description.js';
export { contentSha256MismatchError } from './payload-mode.js';
export {
  AwsChunkedDecoder,
  type AwsChunkedOptions,
  type AwsChunkedResult,
  type ChunkSigningContext,
} from './aws-chunked.js';
export { SigningKeyCache, deriveSigningKey } from './signing-key.js';
export type {
  AccessKeyRecord,
  AuthContext,
  AuthResult,
  BodyDescription,
  PayloadMode,
  SignedAuth,
} from './types.js';
