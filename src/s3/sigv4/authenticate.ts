// Entry point of SigV4 authentication: picks the mechanism (s3.md §2.1) and runs it.

import { S3Error } from '../errors/errors.js';
import type { RequestHead } from '../../http/request-head.js';
import {
  ARG_AUTHORIZATION,
  H_AMZ_SECURITY_TOKEN,
  H_AUTHORIZATION,
  MSG_TWO_AUTH_MECHANISMS,
  MSG_UNSUPPORTED_AUTH_TYPE,
  MSG_UNSUPPORTED_MECHANISM,
  Q_ALGORITHM,
  Q_V2_ACCESS_KEY,
  Q_V2_SIGNATURE,
  SIGV2_SCHEME,
  SIGV4A_ALGORITHM,
  SIGV4_ALGORITHM,
} from './constants.js';
import { findQueryItem, parseQuery, type QueryItem } from './canonical-request.js';
import { authenticateHeader } from './header-auth.js';
import { authenticatePresigned } from './presigned.js';
import { authenticateHeaderV2, authenticatePresignedV2 } from './sigv2.js';
import type { AuthContext, AuthResult } from './types.js';

const ANONYMOUS: AuthResult = Object.freeze({ kind: 'anonymous' });

type QueryAuth = 'none' | 'v4' | 'v2';

function queryAuthKind(query: readonly QueryItem[]): QueryAuth {
  if (findQueryItem(query, Q_ALGORITHM) !== undefined) return 'v4';
  if (findQueryItem(query, Q_V2_SIGNATURE) !== undefined && findQueryItem(query, Q_V2_ACCESS_KEY) !== undefined) {
    return 'v2';
  }
  return 'none';
}

function unsupportedMechanism(): S3Error {
  return new S3Error('InvalidRequest', {}, { message: MSG_UNSUPPORTED_MECHANISM });
}

/**
 * Authenticates one request from its head alone (the body is not read yet, s3.md §1.10 step 3).
 * Synchronous; throws S3Error. OPTIONS preflights must not be passed here (never authenticated).
 */
export function authenticate(head: RequestHead, ctx: AuthContext): AuthResult {
  const authorization = head.headers[H_AUTHORIZATION];
  // Cheap pre-check: most requests carry no query authentication at all.
  const mayHaveQueryAuth =
    head.rawQuery.length > 0 && (head.rawQuery.includes('X-Amz-') || head.rawQuery.includes(Q_V2_SIGNATURE));
  const query =
    head.rawQuery.length > 0 && (authorization !== undefined || mayHaveQueryAuth) ? parseQuery(head.rawQuery) : [];
  const queryAuth = mayHaveQueryAuth ? queryAuthKind(query) : 'none';

  if (authorization !== undefined) {
    if (queryAuth !== 'none') {
      throw new S3Error('InvalidArgument', { ArgumentName: ARG_AUTHORIZATION }, { message: MSG_TWO_AUTH_MECHANISMS });
    }
    const auth = authorization.trim();
    const space = auth.indexOf(' ');
    const scheme = space === -1 ? auth : auth.slice(0, space);
    if (scheme === SIGV4_ALGORITHM) {
      rejectSessionToken(head);
      return authenticateHeader(head, space === -1 ? '' : auth.slice(space + 1), query, ctx);
    }
    if (scheme === SIGV2_SCHEME) return authenticateHeaderV2(head, space === -1 ? '' : auth.slice(space + 1).trim(), query, ctx);
    if (scheme === SIGV4A_ALGORITHM) throw unsupportedMechanism();
    throw new S3Error(
      'InvalidArgument',
      { ArgumentName: ARG_AUTHORIZATION, ArgumentValue: authorization },
      { message: MSG_UNSUPPORTED_AUTH_TYPE },
    );
  }
  if (queryAuth === 'v4') {
    rejectSessionToken(head);
    return authenticatePresigned(head, query, ctx);
  }
  if (queryAuth === 'v2') return authenticatePresignedV2(head, query, ctx);
  return ANONYMOUS;
}

/** STS session credentials are not supported (s3.md §2.9). */
function rejectSessionToken(head: RequestHead): void {
  if (head.headers[H_AMZ_SECURITY_TOKEN] !== undefined) throw new S3Error('InvalidToken');
}
