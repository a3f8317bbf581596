// Public surface of SigV4 authentication (s3.md §2.1–§2.10).

export { authenticate } from './authenticate.js';
export { describeBody, storedContentEncoding } from './body-description.js';
export { contentSha256MismatchError } from './payload-mode.js';
export { AwsChunkedDecoder, type AwsChunkedOptions, type AwsChunkedResult, type ChunkSigningContext } from './aws-chunked.js';
export { SigningKeyCache, deriveSigningKey } from './signing-key.js';
export type { AccessKeyRecord, AuthContext, AuthResult, BodyDescription, PayloadMode, SignedAuth } from './types.js';
