// CORS for browser apps on any origin, as the Walrus daemon's `daemon_cors_layer` (tower-http
// CorsLayer: allow_origin(Any), allow_methods(Any), allow_headers(Any), max_age 24 h).

import type { ResponseHeaders } from '../../http/exchange.js';

/** On every response: tower-http's CorsLayer adds the origin and the Vary it keys caches on. */
export const CORS_HEADERS: ResponseHeaders = [
  ['access-control-allow-origin', '*'],
  ['vary', 'origin, access-control-request-method, access-control-request-headers'],
];

/**
 * The answer to a preflight (any OPTIONS request). The Fetch standard does not let the `*` of
 * Access-Control-Allow-Headers cover `Authorization`, so it is named too: a browser app can send
 * a JWT (walrus.md §10.5).
 */
export const PREFLIGHT_HEADERS: ResponseHeaders = [
  ...CORS_HEADERS,
  ['access-control-allow-methods', '*'],
  ['access-control-allow-headers', '*, authorization'],
  ['access-control-max-age', '86400'],
  ['server', 'Tusk'],
];
