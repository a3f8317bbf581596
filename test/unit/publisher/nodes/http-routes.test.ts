import { describe, expect, it } from 'vitest';
import { classifyNodeRequest, routeTarget, type NodeRoute } from '../../../../src/publisher/nodes/http-routes.js';

const idText = 'RcU82Mwf-CFkv1LaI_2qcpANwpGUuG3TMwnVzZxD2kY';
const blobId = Buffer.from(idText, 'base64url');
const objectId = `0x${'0a'.repeat(32)}`;

describe('storage-node routes (walrus.md §12.2)', () => {
  const table: Array<[string, string, string, NodeRoute]> = [
    ['GET', '/v1/health', '', { op: 'health' }],
    ['PUT', `/v1/blobs/${idText}/metadata`, '', { op: 'putMetadata', blobId }],
    ['PUT', `/v1/blobs/${idText}/metadata`, 'pending=true', { op: 'putMetadata', blobId }],
    ['GET', `/v1/blobs/${idText}/metadata`, '', { op: 'getMetadata', blobId }],
    ['PUT', `/v1/blobs/${idText}/slivers/7/primary`, '', { op: 'putSliver', blobId, pairIndex: 7, axis: 'primary' }],
    ['GET', `/v1/blobs/${idText}/slivers/999/secondary`, '', { op: 'getSliver', blobId, pairIndex: 999, axis: 'secondary' }],
    ['GET', `/v1/blobs/${idText}/confirmation/permanent`, 'epoch=3', { op: 'getConfirmation', blobId, blobType: { kind: 'permanent' }, epoch: 3 }],
    [
      'GET',
      `/v1/blobs/${idText}/confirmation/deletable/${objectId}`,
      'epoch=4294967295',
      { op: 'getConfirmation', blobId, blobType: { kind: 'deletable', objectId }, epoch: 4294967295 },
    ],
    ['DELETE', `/v1/blobs/${idText}`, '', { op: 'deleteBlob', blobId }],
  ];

  it.each(table)('%s %s?%s', (method, path, query, route) => {
    expect(classifyNodeRequest(method, path, query)).toEqual(route);
    // The client builds the same target the server classifies.
    const target = routeTarget(route);
    const [targetPath, targetQuery = ''] = target.split('?');
    expect(classifyNodeRequest(method, targetPath!, targetQuery)).toEqual(route);
  });

  const failures: Array<[string, string, string, string]> = [
    ['GET', '/v1/nothing', '', 'ROUTE_NOT_FOUND'],
    ['POST', `/v1/blobs/${idText}/metadata`, '', 'ROUTE_NOT_FOUND'],
    ['GET', `/v1/blobs/${idText}/slivers/1/tertiary`, '', 'ROUTE_NOT_FOUND'],
    ['GET', `/v1/blobs/${idText.slice(1)}/metadata`, '', 'INVALID_BLOB_ID'],
    ['GET', `/v1/blobs/${idText.slice(0, 42)}Z/metadata`, '', 'INVALID_BLOB_ID'],
    ['GET', `/v1/blobs/${idText}/slivers/-1/primary`, '', 'INVALID_PAIR_INDEX'],
    ['GET', `/v1/blobs/${idText}/confirmation/permanent`, '', 'INVALID_EPOCH'],
    ['GET', `/v1/blobs/${idText}/confirmation/permanent`, 'epoch=4294967296', 'INVALID_EPOCH'],
    ['GET', `/v1/blobs/${idText}/confirmation/deletable/0x12`, 'epoch=1', 'INVALID_OBJECT_ID'],
  ];

  it.each(failures)('%s %s?%s → %s', (method, path, query, code) => {
    expect(() => classifyNodeRequest(method, path, query)).toThrow(expect.objectContaining({ code }));
  });
});
