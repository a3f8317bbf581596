import { S3Error } from '../../../../src/s3/errors/errors.js';
import type { RequestInput } from '../../../../src/s3/routes/input.js';

/** A parser's input from query parameters and headers. */
export function input(query: Record<string, string> = {}, headers: Record<string, string> = {}): RequestInput {
  return { query: new Map(Object.entries(query)), headers };
}

/** What `fn` throws, as code, argument name and message; undefined when it returns. */
export function errorOf(fn: () => unknown): { code: string; argument: unknown; message: string } | undefined {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof S3Error)) throw e;
    return { code: e.code, argument: e.extras.ArgumentName, message: e.message };
  }
  return undefined;
}
