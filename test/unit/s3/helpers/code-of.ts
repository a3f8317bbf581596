import { S3Error } from '../../../../src/s3/errors/errors.js';

/** The S3 error code `fn` throws, or undefined when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof S3Error) return e.code;
    throw e;
  }
  return undefined;
}
