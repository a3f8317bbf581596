// Failures that end a run at once: an endpoint that refuses connections or rejects the credentials
// fails every later request the same way, and thousands of them measure nothing.

/** Error codes (S3 codes or `net:` codes from the clients) that no later request will escape. */
const UNREACHABLE = new Set(['net:ECONNREFUSED', 'net:EHOSTUNREACH', 'net:ENETUNREACH', 'net:ENOTFOUND', 'net:EAI_AGAIN']);
const CREDENTIALS = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch']);

export type FatalKind = 'unreachable' | 'credentials';

export class FatalBenchError extends Error {
  constructor(
    readonly kind: FatalKind,
    message: string,
  ) {
    super(message);
  }
}

/** The fatal error `code` stands for, or undefined when the run may go on. */
export function fatalError(code: string, endpoint: string): FatalBenchError | undefined {
  if (UNREACHABLE.has(code)) {
    return new FatalBenchError('unreachable', `${endpoint} refuses connections (${code.slice(4)}): is the server running and the address right? Stopped.`);
  }
  if (CREDENTIALS.has(code)) {
    return new FatalBenchError('credentials', `${endpoint} rejects the credentials (${code}): check --access-key/--secret-key (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and --region. Stopped.`);
  }
  return undefined;
}
