import { describe, expect, it } from 'vitest';
import { consoleOrigins, originOf } from '../../../src/console/origins.js';
import { contentSecurityPolicy, endpointOf } from '../../../src/console/server.js';

describe('console origins (what S3 answers CORS for)', () => {
  it('are the loopback names of a loopback listener', () => {
    expect(consoleOrigins({ host: '127.0.0.1', port: 0 }, 9001, false, [])).toEqual(['http://127.0.0.1:9001', 'http://localhost:9001', 'http://[::1]:9001']);
  });

  it('are its own address otherwise, the configured ones when given, without a default port', () => {
    expect(consoleOrigins({ host: '192.0.2.7', port: 443 }, 443, true, [])).toEqual(['https://192.0.2.7']);
    expect(consoleOrigins({ host: '0.0.0.0', port: 9001 }, 9001, false, ['https://console.example.com'])).toEqual(['https://console.example.com']);
    expect(consoleOrigins({ host: '0.0.0.0', port: 9001 }, 9001, false, [])).toContain('http://localhost:9001');
    expect(originOf('http', '::1', 80)).toBe('http://[::1]');
  });
});

describe('console page', () => {
  it('may connect to its own listener, the S3 endpoint and the publisher only, and play media from S3 only', () => {
    const csp = contentSecurityPolicy({ s3: endpointOf('http', '127.0.0.1', 9000), publisher: endpointOf('http', '0.0.0.0', 31415), region: 'us-east-1' });
    expect(csp).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob: http://127.0.0.1:9000; " +
        "connect-src 'self' http://127.0.0.1:9000 http://*:31415; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });
});
