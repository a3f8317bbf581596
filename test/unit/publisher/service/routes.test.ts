import { describe, expect, it } from 'vitest';
import { PublisherError } from '../../../../src/publisher/service/errors.js';
import { classifyPublisherRequest, EndpointKeys, loggablePath } from '../../../../src/publisher/service/routes.js';

const KEY = 'k3y-for-tests';
const keys = new EndpointKeys([KEY, 'second-key']);
const BLOB = 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk';

function classify(method: string, path: string): unknown {
  try {
    return classifyPublisherRequest(method, path, keys);
  } catch (e) {
    return (e as PublisherError).code;
  }
}

describe('publisher routes (walrus.md §10.1, §11; seed interface B)', () => {
  it.each([
    ['PUT', `/${KEY}/v1/blobs`, { op: 'storeBlob' }],
    ['PUT', '/second-key/v1/blobs', { op: 'storeBlob' }],
    ['PUT', '/v1/blobs', 'MISSING_ENDPOINT_KEY'],
    ['PUT', '/wrong-key-x/v1/blobs', 'INVALID_ENDPOINT_KEY'],
    ['PUT', `/${KEY}x/v1/blobs`, 'INVALID_ENDPOINT_KEY'],
    ['GET', '/status', { op: 'status' }],
    ['HEAD', '/status', { op: 'status' }],
    ['GET', '/v1/api', { op: 'api' }],
    ['HEAD', `/${KEY}/v1/api`, { op: 'api' }],
    ['PUT', '/v1/api', 'METHOD_NOT_ALLOWED'],
    ['OPTIONS', `/v1/blobs`, { op: 'preflight' }],
    ['OPTIONS', `/any-key-at-all/v1/blobs`, { op: 'preflight' }],
    ['HEAD', `/v1/blobs/${BLOB}`, { op: 'readBlob', blobId: BLOB }],
    ['HEAD', `/v1/blobs/${BLOB}/byte-range`, { op: 'readBlobRange', blobId: BLOB }],
    ['HEAD', `/v1/blobs/by-object-id/0x${'ab'.repeat(32)}`, { op: 'readBlobByObject', objectId: `0x${'ab'.repeat(32)}` }],
    ['HEAD', `/${KEY}/v1/blobs`, 'METHOD_NOT_ALLOWED'],
    ['GET', `/${KEY}/status`, { op: 'status' }],
    ['GET', '/wrong-key-x/status', 'INVALID_ENDPOINT_KEY'],
    ['GET', `/v1/blobs/${BLOB}`, { op: 'readBlob', blobId: BLOB }],
    ['GET', `/${KEY}/v1/blobs/${BLOB}`, { op: 'readBlob', blobId: BLOB }],
    ['GET', `/v1/blobs/${BLOB}/byte-range`, { op: 'readBlobRange', blobId: BLOB }],
    ['GET', `/${KEY}/v1/blobs/${BLOB}/byte-range`, { op: 'readBlobRange', blobId: BLOB }],
    ['GET', `/v1/blobs/by-object-id/0x${'ab'.repeat(32)}`, { op: 'readBlobByObject', objectId: `0x${'ab'.repeat(32)}` }],
    ['GET', '/v1/blobs/by-object-id', { op: 'readBlob', blobId: 'by-object-id' }],
    ['GET', `/v1/blobs/by-object-id/0x${'ab'.repeat(32)}/byte-range`, 'ROUTE_NOT_FOUND'],
    ['PUT', `/${KEY}/v1/blobs/${BLOB}/byte-range`, 'METHOD_NOT_ALLOWED'],
    ['GET', '/v1/ledger/transactions/abc', { op: 'ledger', rest: 'transactions/abc' }],
    ['GET', `/${KEY}/v1/ledger/events/abc/0`, { op: 'ledger', rest: 'events/abc/0' }],
    ['GET', '/v1/blobs', 'METHOD_NOT_ALLOWED'],
    ['POST', `/${KEY}/v1/blobs`, 'METHOD_NOT_ALLOWED'],
    ['DELETE', `/v1/blobs/${BLOB}`, 'METHOD_NOT_ALLOWED'],
    ['GET', `/v1/blobs/${BLOB}/extra`, 'ROUTE_NOT_FOUND'],
    ['GET', '/', 'ROUTE_NOT_FOUND'],
    ['GET', '/favicon.ico', 'ROUTE_NOT_FOUND'],
    ['PUT', `/${KEY}/v1/quilts`, { op: 'storeQuilt' }],
    ['PUT', '/v1/quilts', 'MISSING_ENDPOINT_KEY'],
    ['GET', `/v1/blobs/by-quilt-patch-id/abc`, { op: 'readQuiltPatch', patchId: 'abc' }],
    ['HEAD', `/${KEY}/v1/blobs/by-quilt-id/${BLOB}/a%20b.txt`, { op: 'readQuiltPatchByIdentifier', quiltId: BLOB, identifier: 'a b.txt' }],
    ['GET', `/v1/blobs/by-quilt-id/${BLOB}`, 'ROUTE_NOT_FOUND'],
    ['GET', `/v1/quilts/${BLOB}/patches`, { op: 'listQuiltPatches', quiltId: BLOB }],
    ['GET', `/v1/quilts/${BLOB}`, 'ROUTE_NOT_FOUND'],
    ['GET', `/v1alpha/blobs/${BLOB}/stream`, { op: 'streamBlob', blobId: BLOB }],
    ['HEAD', `/${KEY}/v1alpha/blobs/${BLOB}/stream`, { op: 'streamBlob', blobId: BLOB }],
    ['PUT', `/v1alpha/blobs/${BLOB}/stream`, 'METHOD_NOT_ALLOWED'],
    ['GET', '/v1alpha/blobs/concat', { op: 'concatBlobs' }],
    ['POST', `/${KEY}/v1alpha/blobs/concat`, { op: 'concatBlobs' }],
    ['PUT', '/v1alpha/blobs/concat', 'METHOD_NOT_ALLOWED'],
    ['GET', `/v1alpha/blobs/${BLOB}`, 'ROUTE_NOT_FOUND'],
  ])('%s %s', (method, path, expected) => {
    expect(classify(method, path)).toEqual(expected);
  });

  it.each([
    ['DELETE', `/v1/blobs/${BLOB}`, 'GET,HEAD'],
    ['GET', '/v1/blobs', 'PUT'],
    ['POST', `/${KEY}/v1/quilts`, 'PUT'],
    ['PUT', '/v1alpha/blobs/concat', 'GET,HEAD,POST'],
    ['GET', '/v1/blob-upload-relay', 'POST'],
  ])('%s %s is a 405 with Allow: %s, as the daemon router answers a known path under another method', (method, path, allow) => {
    const error = (() => {
      try {
        classifyPublisherRequest(method, path, keys);
      } catch (e) {
        return e as PublisherError;
      }
    })();
    expect(error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', httpStatus: 405, metadata: { allow } });
  });

  it('refuses keys that could not be path segments or would shadow a route', () => {
    expect(() => new EndpointKeys([])).toThrow(RangeError);
    expect(() => new EndpointKeys(['short'])).toThrow(RangeError);
    expect(() => new EndpointKeys(['has/slash-key'])).toThrow(RangeError);
    expect(() => new EndpointKeys(['status'])).toThrow(RangeError);
  });

  it('names the endpoint key of a path instead of showing it, for logs', () => {
    expect(loggablePath(`/${KEY}/v1/blobs`)).toBe('/<endpoint_key>/v1/blobs');
    expect(loggablePath(`/${KEY}`)).toBe('/<endpoint_key>');
    expect(loggablePath(`/v1/blobs/${BLOB}`)).toBe(`/v1/blobs/${BLOB}`);
    expect(loggablePath('/status')).toBe('/status');
    expect(loggablePath('/')).toBe('/');
  });
});
