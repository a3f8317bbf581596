// SigV4 protocol strings (s3.md §2; AWS *Authenticating Requests (AWS Signature Version 4)*).

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
/** SigV4a (ECDSA) — recognised only to be rejected (s3.md §2.1). */
export const SIGV4A_ALGORITHM = 'AWS4-ECDSA-P256-SHA256';
/** SigV2 `Authorization: AWS <ak>:<sig>` scheme — rejected (s3.md §2.1). */
export const SIGV2_SCHEME = 'AWS';

export const SERVICE_S3 = 's3';
export const SCOPE_TERMINATOR = 'aws4_request';
export const SIGNING_KEY_PREFIX = 'AWS4';

/** StringToSign algorithm lines of the aws-chunked signatures (s3.md §2.8). */
export const CHUNK_ALGORITHM = 'AWS4-HMAC-SHA256-PAYLOAD';
export const TRAILER_ALGORITHM = 'AWS4-HMAC-SHA256-TRAILER';

/** SHA-256 of the empty string, hex. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// x-amz-content-sha256 values (s3.md §2.6).
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_PREFIX = 'STREAMING-';
export const STREAMING_SIGNED_PAYLOAD = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_PAYLOAD_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_PAYLOAD_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const STREAMING_ECDSA_PAYLOAD = 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD';
export const STREAMING_ECDSA_PAYLOAD_TRAILER = 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER';

// Request header names (lower-case, as in RequestHead.headerList).
export const H_AUTHORIZATION = 'authorization';
export const H_HOST = 'host';
export const H_DATE = 'date';
export const H_CONTENT_MD5 = 'content-md5';
export const H_CONTENT_LENGTH = 'content-length';
export const H_CONTENT_ENCODING = 'content-encoding';
export const H_AMZ_PREFIX = 'x-amz-';
export const H_AMZ_DATE = 'x-amz-date';
export const H_AMZ_CONTENT_SHA256 = 'x-amz-content-sha256';
export const H_AMZ_DECODED_CONTENT_LENGTH = 'x-amz-decoded-content-length';
export const H_AMZ_TRAILER = 'x-amz-trailer';
export const H_AMZ_SECURITY_TOKEN = 'x-amz-security-token';
export const H_AMZ_BUCKET_REGION = 'x-amz-bucket-region';
export const H_AMZ_TRAILER_SIGNATURE = 'x-amz-trailer-signature';

/** Components of the Authorization header value (s3.md §2.2). */
export const AUTH_CREDENTIAL = 'Credential';
export const AUTH_SIGNED_HEADERS = 'SignedHeaders';
export const AUTH_SIGNATURE = 'Signature';
/** `ArgumentName` of InvalidArgument errors about the Authorization header (s3.md §2.1). */
export const ARG_AUTHORIZATION = 'Authorization';

/** Content-Encoding token of aws-chunked bodies (s3.md §2.7). */
export const AWS_CHUNKED_ENCODING = 'aws-chunked';

// Presigned URL query parameters (s3.md §2.9). Names are case-sensitive as AWS spells them.
export const Q_ALGORITHM = 'X-Amz-Algorithm';
export const Q_CREDENTIAL = 'X-Amz-Credential';
export const Q_DATE = 'X-Amz-Date';
export const Q_EXPIRES = 'X-Amz-Expires';
export const Q_SIGNED_HEADERS = 'X-Amz-SignedHeaders';
export const Q_SIGNATURE = 'X-Amz-Signature';
export const Q_SECURITY_TOKEN = 'X-Amz-Security-Token';
/** SigV2 query authentication parameters — rejected (s3.md §2.1). */
export const Q_V2_ACCESS_KEY = 'AWSAccessKeyId';
export const Q_V2_SIGNATURE = 'Signature';

/** Lower-cased auth parameter names that are never hoisted into headers (s3.md §2.9). */
export const PRESIGN_AUTH_PARAMS_LOWER: ReadonlySet<string> = new Set(
  [Q_ALGORITHM, Q_CREDENTIAL, Q_DATE, Q_EXPIRES, Q_SIGNED_HEADERS, Q_SIGNATURE, Q_SECURITY_TOKEN].map((n) =>
    n.toLowerCase(),
  ),
);

/** Longest presigned URL lifetime, seconds (s3.md §2.9, §6). */
export const MAX_PRESIGN_EXPIRES_S = 604800;

/** aws-chunked size-line and trailer-line length limit (s3.md §2.8, §6). */
export const MAX_CHUNK_LINE_BYTES = 4096;
/** Bound on the number of trailer lines kept (a trailer is one checksum plus its signature). */
export const MAX_TRAILER_LINES = 16;

// Error message texts as S3 words them (s3.md §2.1–§2.9).
export const MSG_TWO_AUTH_MECHANISMS =
  'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified';
export const MSG_UNSUPPORTED_MECHANISM =
  'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';
export const MSG_UNSUPPORTED_AUTH_TYPE = 'Unsupported Authorization Type';
export const MSG_HEADER_MALFORMED = 'The authorization header is malformed; ';
export const MSG_QUERY_CREDENTIAL_PREFIX = 'Error parsing the X-Amz-Credential parameter; ';
export const MSG_CREDENTIAL_FORMAT =
  'the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".';
export const MSG_CREDENTIAL_DATE = 'Invalid credential date. Date is not the same as X-Amz-Date.';
export const MSG_MISSING_COMPONENTS =
  'the authorization header requires three components: Credential, SignedHeaders, and Signature.';
export const MSG_NO_VALID_DATE = 'AWS authentication requires a valid Date or x-amz-date header';
export const MSG_HEADERS_NOT_SIGNED = 'There were headers present in the request which were not signed';
export const MSG_MISSING_CONTENT_SHA256 = 'Missing required header for this request: x-amz-content-sha256';
export const MSG_INVALID_CONTENT_SHA256 =
  'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER or a valid sha256 value.';
export const MSG_QUERY_PARAMS_MISSING =
  'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.';
export const MSG_QUERY_ALGORITHM = 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256" and "AWS4-ECDSA-P256-SHA256"';
export const MSG_QUERY_DATE = 'X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd\'T\'HHmmss\'Z\'"';
export const MSG_EXPIRES_TOO_LONG = 'X-Amz-Expires must be less than a week (in seconds) that is 604800';
export const MSG_EXPIRES_NEGATIVE = 'X-Amz-Expires must be non-negative';
export const MSG_EXPIRES_NOT_A_NUMBER = 'X-Amz-Expires should be a number';
export const MSG_QUERY_SIGNED_HEADERS_EMPTY = 'X-Amz-SignedHeaders must not be empty';
export const MSG_NOT_YET_VALID = 'Request is not valid yet';
export const MSG_EXPIRED = 'Request has expired';
export const MSG_ACCESS_DENIED = 'Access Denied';
export const MSG_AWS_CHUNKED_NOT_STREAMING =
  'Content-Encoding aws-chunked requires a STREAMING- value in x-amz-content-sha256';
export const MSG_MISSING_TRAILER_HEADER = 'Missing required header for this request: x-amz-trailer';
export const MSG_STREAMING_ANONYMOUS = 'Signed aws-chunked payloads require an authenticated request';
