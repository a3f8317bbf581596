// The one S3 error table (s3.md §5): each code's HTTP status and AWS message. Handlers throw
// `new S3Error(code, extras)`; only src/s3/xml.ts renders the body.

export const ERROR_TABLE = {
  AccessDenied: [403, 'Access Denied'],
  AccessControlListNotSupported: [400, 'The bucket does not allow ACLs'],
  AccessForbidden: [403, 'CORSResponse: This CORS request is not allowed.'],
  AuthorizationHeaderMalformed: [400, 'The authorization header is malformed.'],
  AuthorizationQueryParametersError: [400, 'Error parsing the query-string authentication parameters.'],
  BadDigest: [400, 'The Content-MD5 you specified did not match what we received.'],
  BadRequest: [400, 'Insufficient information. Origin request header needed.'],
  BucketAlreadyExists: [
    409,
    'The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.',
  ],
  BucketAlreadyOwnedByYou: [409, 'Your previous request to create the named bucket succeeded and you already own it.'],
  BucketNotEmpty: [409, 'The bucket you tried to delete is not empty'],
  ConditionalRequestConflict: [409, 'A conflicting operation occurred. If using PutObject you can retry the request.'],
  EntityTooLarge: [400, 'Your proposed upload exceeds the maximum allowed size'],
  EntityTooSmall: [400, 'Your proposed upload is smaller than the minimum allowed object size.'],
  IllegalVersioningConfigurationException: [400, 'The Versioning element must be specified'],
  IncompleteBody: [400, 'You did not provide the number of bytes specified by the Content-Length HTTP header.'],
  InternalError: [500, 'We encountered an internal error. Please try again.'],
  InvalidAccessKeyId: [403, 'The AWS Access Key Id you provided does not exist in our records.'],
  InvalidArgument: [400, 'Invalid Argument'],
  InvalidBucketAclWithObjectOwnership: [400, "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"],
  InvalidBucketName: [400, 'The specified bucket is not valid.'],
  InvalidBucketOwnerAWSAccountID: [400, 'The value of the expected bucket owner parameter must be an AWS Account ID'],
  InvalidBucketState: [409, 'The request is not valid with the current state of the bucket.'],
  InvalidTargetBucketForLogging: [400, 'The target bucket for logging does not exist, is not owned by you, or does not have the appropriate grants for the log-delivery group.'],
  InvalidEncryptionAlgorithmError: [400, 'The encryption request you specified is not valid. The valid value is AES256.'],
  InvalidDigest: [400, 'The Content-MD5 you specified was invalid.'],
  InvalidLocationConstraint: [400, 'The specified location-constraint is not valid'],
  IncorrectNumberOfFilesInPostRequest: [400, 'POST requires exactly one file upload per request.'],
  InvalidPart: [
    400,
    "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  ],
  InvalidPolicyDocument: [400, 'Invalid Policy: Invalid JSON.'],
  InvalidPartNumber: [416, 'The requested partnumber is not satisfiable'],
  InvalidPartOrder: [400, 'The list of parts was not in ascending order. Parts must be ordered by part number.'],
  InvalidRange: [416, 'The requested range is not satisfiable'],
  InvalidRequest: [400, 'Invalid Request'],
  InvalidStorageClass: [400, 'The storage class you specified is not valid'],
  InvalidTag: [400, 'The TagSet provided is not valid.'],
  InvalidToken: [400, 'The provided token is malformed or otherwise invalid.'],
  InvalidURI: [400, "Couldn't parse the specified URI."],
  KeyTooLongError: [400, 'Your key is too long'],
  // SSE-KMS: S3 passes the key service's exception on, prefixed KMS. (s3/sse/kms.ts)
  'KMS.DisabledException': [400, 'The specified KMS key is not enabled.'],
  'KMS.KMSInvalidStateException': [400, 'The specified KMS key is not in a valid state for this request.'],
  'KMS.NotFoundException': [400, 'Invalid keyId'],
  MalformedACLError: [400, 'The XML you provided was not well-formed or did not validate against our published schema'],
  MalformedPolicy: [400, 'This policy contains invalid Json'],
  MalformedPOSTRequest: [400, 'The body of your POST request is not well-formed multipart/form-data.'],
  MalformedTrailerError: [
    400,
    'The request contained trailing data that was not well-formed or did not conform to our published schema.',
  ],
  MalformedXML: [400, 'The XML you provided was not well-formed or did not validate against our published schema'],
  MaxMessageLengthExceeded: [400, 'Your request was too big.'],
  MaxPostPreDataLengthExceededError: [400, 'Your POST request fields preceeding the upload file was too large.'],
  MetadataTooLarge: [400, 'Your metadata headers exceed the maximum allowed metadata size.'],
  MethodNotAllowed: [405, 'The specified method is not allowed against this resource.'],
  MissingContentLength: [411, 'You must provide the Content-Length HTTP header.'],
  MissingRequestBodyError: [400, 'Request Body is empty.'],
  NoSuchBucket: [404, 'The specified bucket does not exist'],
  NoSuchBucketPolicy: [404, 'The bucket policy does not exist'],
  NoSuchCORSConfiguration: [404, 'The CORS configuration does not exist'],
  NoSuchKey: [404, 'The specified key does not exist.'],
  NoSuchLifecycleConfiguration: [404, 'The lifecycle configuration does not exist'],
  NoSuchObjectLockConfiguration: [404, 'The specified object does not have a ObjectLock configuration'],
  NoSuchPublicAccessBlockConfiguration: [404, 'The public access block configuration was not found'],
  NoSuchTagSet: [404, 'The TagSet does not exist'],
  NoSuchUpload: [
    404,
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  ],
  NoSuchVersion: [404, 'The specified version does not exist.'],
  NoSuchWebsiteConfiguration: [404, 'The specified bucket does not have a website configuration'],
  NotImplemented: [501, 'A header you provided implies functionality that is not implemented'],
  ObjectLockConfigurationNotFoundError: [404, 'Object Lock configuration does not exist for this bucket'],
  OwnershipControlsNotFoundError: [404, 'The bucket ownership controls were not found'],
  // Ceph RGW's answer to a write past a bucket quota (403 QuotaExceeded); MinIO answers 400
  // XMinioAdminBucketQuotaExceeded (cmd/api-errors.go). 403 keeps SDKs from retrying.
  QuotaExceeded: [403, 'Bucket quota exceeded'],
  PreconditionFailed: [412, 'At least one of the pre-conditions you specified did not hold'],
  ReplicationConfigurationNotFoundError: [404, 'The replication configuration was not found'],
  RequestHeaderSectionTooLarge: [400, 'Your request header section exceeds the maximum allowed size.'],
  RequestTimeout: [400, 'Your socket connection to the server was not read from or written to within the timeout period.'],
  RequestTimeTooSkewed: [403, 'The difference between the request time and the current time is too large.'],
  ServerSideEncryptionConfigurationNotFoundError: [404, 'The server side encryption configuration was not found'],
  ServiceUnavailable: [503, 'Please reduce your request rate.'],
  SignatureDoesNotMatch: [
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  ],
  SlowDown: [503, 'Please reduce your request rate.'],
  TooManyBuckets: [400, 'You have attempted to create more buckets than allowed'],
  UnexpectedContent: [400, 'This request does not support content'],
  UnresolvableGrantByEmailAddress: [400, 'The e-mail address you provided does not match any account on record.'],
  // not an AWS code: S3 has no full disk; named after MinIO's XMinioStorageFull (cmd/api-errors.go)
  XTuskStorageFull: [507, 'There is not enough free space on the server to store this object.'],
  // not an AWS code: S3 never loses stored bytes it acknowledged. A server fault (500), named so that
  // it is not taken for a passing InternalError: the object's bytes failed their checksum or are gone
  XTuskObjectDamaged: [500, 'The stored bytes of this object are damaged (missing, or failing their checksum); it cannot be read.'],
  XAmzContentSHA256Mismatch: [400, "The provided 'x-amz-content-sha256' header does not match what was computed."],
} as const satisfies Record<string, readonly [number, string]>;

export type S3ErrorCode = keyof typeof ERROR_TABLE;

/** Extra elements placed between `Message` and `RequestId` (s3.md §1.9), in insertion order. */
export type ErrorExtras = Record<string, string | number | undefined>;

export interface S3ErrorOptions {
  /** Overrides the table's message (codes whose message is "(specific)" in s3.md §5). */
  message?: string;
  /** Extra response headers (e.g. `x-amz-bucket-region`, `Allow`, `Content-Range`). */
  headers?: Record<string, string>;
  /** Close the connection after answering (error raised before the body was read, s3.md §1.7). */
  close?: boolean;
}

export class S3Error extends Error {
  readonly code: S3ErrorCode;
  readonly status: number;
  readonly extras: ErrorExtras;
  readonly headers: Record<string, string>;
  close: boolean;

  constructor(code: S3ErrorCode, extras: ErrorExtras = {}, options: S3ErrorOptions = {}) {
    const [status, message] = ERROR_TABLE[code];
    super(options.message ?? message);
    this.name = 'S3Error';
    this.code = code;
    this.status = status;
    this.extras = extras;
    this.headers = options.headers ?? {};
    this.close = options.close ?? false;
  }
}

export function isS3Error(e: unknown): e is S3Error {
  return e instanceof S3Error;
}

/**
 * Thrown before any answer by a handler whose request only the writer thread can serve: the S3
 * pipeline hands the request there (S3Services.forwardToWriter); anywhere else (the website
 * endpoint) it answers as what it is, a 503.
 */
export class ServedByWriter extends S3Error {
  constructor(message: string) {
    super('ServiceUnavailable', {}, { message });
  }
}
