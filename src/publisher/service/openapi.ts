// The OpenAPI 3.0 document served at GET /v1/api (walrus.md §10.1; the Walrus daemon serves its own
// there through ReDoc, which would need a script from the internet: Tusk serves the JSON itself).
// Every operation names the router's op in `x-tusk-route`, so a test can check the document and
// the router against each other (test/unit/publisher/service/openapi.test.ts).

import type { PublisherRoute } from './routes.js';

type Op = PublisherRoute['op'];
type Json = Record<string, unknown>;

const BLOB_ID = { name: 'blob_id', in: 'path', required: true, description: 'blob id: 43 characters of unpadded base64url', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } };
const OBJECT_ID = { name: 'object_id', in: 'path', required: true, description: 'Sui object id of a Blob object', schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } };
const QUILT_ID = { name: 'quilt_id', in: 'path', required: true, description: 'blob id of the quilt', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } };
const ENDPOINT_KEY = { name: 'endpoint_key', in: 'path', required: true, description: 'one of the publisher endpoint keys (seed interface B)', schema: { type: 'string' } };
const bool = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'boolean' } });
const READ_OPTIONS = [
  bool('strict_consistency_check', 're-encode the rebuilt blob and compare its blob id (default: each systematic primary sliver against its hash)'),
  bool('skip_consistency_check', 'accepted; Tusk still does the default check; excludes strict_consistency_check'),
];
const RANGE_HEADER = { name: 'Range', in: 'header', required: false, description: 'one range `bytes=a-b` with both ends inside the blob, else 416', schema: { type: 'string' } };
const STORE_QUERY = [
  { name: 'epochs', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 }, description: 'epochs ahead of the current one' },
  bool('deletable', 'create a deletable blob (Tusk default false, as in the seed: blobs are permanent unless asked)'),
  bool('permanent', 'permanent=true: a permanent blob; permanent=false: a deletable one'),
  { name: 'send_object_to', in: 'query', schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' }, description: 'transfer the new Blob object to this address' },
  bool('share', 'wrap the new Blob object in a shared object (exclusive with send_object_to)'),
  bool('force', 'store even if the blob is already certified'),
  bool('reuse_resources', 'accepted; Tusk holds no reusable storage'),
  { name: 'encoding_type', in: 'query', schema: { type: 'string', enum: ['RS2'] } },
];
const BYTES = { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
const ERROR = { description: 'AIP-193 error (walrus.md §10.4)', content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } } };
const errors = (...codes: number[]): Json => Object.fromEntries(codes.map((code) => [String(code), ERROR]));
const JSON_OK = (description: string, schema: Json) => ({ description, content: { 'application/json': { schema } } });

function read(route: Op, summary: string, parameters: unknown[], okStatus = '200'): Json {
  const responses = { [okStatus]: { description: 'the blob bytes', ...BYTES }, ...errors(400, 404, 416, 429, 503) };
  return {
    get: { operationId: route, 'x-tusk-route': route, summary, parameters, responses },
    head: { operationId: `${route}Head`, 'x-tusk-route': route, summary: `${summary} (headers only)`, parameters, responses },
  };
}

const STORE_OP = (route: Op, operationId: string, description: string, security?: Json[]): Json => ({
  put: {
    operationId,
    ...(security ? { security } : {}),
    'x-tusk-route': route,
    summary: 'Store the request body as one blob',
    description,
    parameters: STORE_QUERY,
    requestBody: { required: true, ...BYTES },
    responses: { '200': JSON_OK('newlyCreated or alreadyCertified', { $ref: '#/components/schemas/BlobStoreResult' }), ...errors(400, 401, 403, 413, 429, 504) },
  },
});

/** The document; `paths` keys are OpenAPI path templates. */
export function openApiDocument(version: string): Json {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Tusk publisher and aggregator',
      version,
      description:
        'Walrus-compatible publisher and aggregator (walrus.md §10–11). Every route also answers under /{endpoint_key}/. ' +
        'CORS: any origin, method and header, preflight cached 24 h, as the Walrus daemon. ' +
        'Storing needs an endpoint key in the path or, when configured, a JWT in `Authorization: Bearer`.',
    },
    paths: {
      '/status': { get: { operationId: 'status', 'x-tusk-route': 'status', responses: { '200': { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      '/v1/api': { get: { operationId: 'api', 'x-tusk-route': 'api', summary: 'This document', responses: { '200': JSON_OK('OpenAPI 3.0 document', { type: 'object' }) } } },
      '/{endpoint_key}/v1/blobs': { parameters: [ENDPOINT_KEY], ...STORE_OP('storeBlob', 'storeBlob', 'Authorized by the endpoint key in the path.') },
      '/v1/blobs': { ...STORE_OP('storeBlob', 'storeBlobWithJwt', 'Authorized by a JWT (`Authorization: Bearer`), when the publisher is configured with a JWT secret; else 401.', [{ jwt: [] }]) },
      '/v1/blobs/{blob_id}': { parameters: [BLOB_ID], ...read('readBlob', 'Read a blob (206 with a Range)', [...READ_OPTIONS, RANGE_HEADER]) },
      '/v1/blobs/{blob_id}/byte-range': {
        parameters: [BLOB_ID],
        ...read('readBlobRange', 'Read bytes [start, start+length) of a blob; 200 for CDN caching', [
          { name: 'start', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } },
          { name: 'length', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
        ]),
      },
      '/v1/blobs/by-object-id/{object_id}': { parameters: [OBJECT_ID], ...read('readBlobByObject', 'Read the blob of a Blob object', [...READ_OPTIONS, RANGE_HEADER]) },
      '/v1alpha/blobs/{blob_id}/stream': { parameters: [BLOB_ID], ...read('streamBlob', 'Read a blob as its rows are read (x-walrus-streaming: true)', []) },
      '/v1alpha/blobs/concat': {
        ...read('concatBlobs', 'Several blobs one after another; ETag: base64url SHA-256 of the ids joined with commas', [
          { name: 'ids', in: 'query', required: true, description: 'blob ids or Blob object ids, comma-separated', schema: { type: 'string' } },
          ...READ_OPTIONS,
        ]),
        post: {
          operationId: 'concatBlobsPost',
          'x-tusk-route': 'concatBlobs',
          summary: 'Several blobs one after another, named in a JSON body',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['ids'],
                  additionalProperties: false,
                  properties: { ids: { type: 'array', items: { type: 'string' } }, strict_consistency_check: { type: 'boolean' }, skip_consistency_check: { type: 'boolean' } },
                },
              },
            },
          },
          responses: { '200': { description: 'the blobs concatenated', ...BYTES }, ...errors(400, 404, 429, 503) },
        },
      },
      '/{endpoint_key}/v1/quilts': { parameters: [ENDPOINT_KEY], ...QUILT_OP('storeQuilt', 'Authorized by the endpoint key in the path.') },
      '/v1/quilts': { ...QUILT_OP('storeQuiltWithJwt', 'Authorized by a JWT, when the publisher is configured with a JWT secret; else 401.', [{ jwt: [] }]) },
      '/v1/blobs/by-quilt-patch-id/{quilt_patch_id}': {
        parameters: [{ name: 'quilt_patch_id', in: 'path', required: true, description: 'base64url of quilt id ‖ 1 ‖ u16 start ‖ u16 end', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{50}$' } }],
        ...read('readQuiltPatch', 'Read one file of a quilt by its patch id (identifier in X-Quilt-Patch-Identifier)', READ_OPTIONS),
      },
      '/v1/blobs/by-quilt-id/{quilt_id}/{identifier}': {
        parameters: [QUILT_ID, { name: 'identifier', in: 'path', required: true, schema: { type: 'string' } }],
        ...read('readQuiltPatchByIdentifier', 'Read one file of a quilt by its identifier', READ_OPTIONS),
      },
      '/v1/quilts/{quilt_id}/patches': {
        parameters: [QUILT_ID],
        get: {
          operationId: 'listQuiltPatches',
          'x-tusk-route': 'listQuiltPatches',
          summary: 'The files of a quilt: identifier, patch_id, tags',
          responses: { '200': JSON_OK('the patches', { type: 'array', items: { $ref: '#/components/schemas/QuiltPatchItem' } }), ...errors(400, 404, 503) },
        },
      },
      '/v1/blob-upload-relay': {
        post: {
          operationId: 'uploadRelay',
          'x-tusk-route': 'uploadRelay',
          summary: 'Upload relay: encode a registered blob, store its slivers, answer the confirmation certificate',
          parameters: [
            { name: 'blob_id', in: 'query', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
            { name: 'tx_id', in: 'query', schema: { type: 'string' }, description: 'tip transaction (no tip is asked here)' },
            { name: 'nonce', in: 'query', schema: { type: 'string' } },
            { name: 'deletable_blob_object', in: 'query', schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } },
            { name: 'encoding_type', in: 'query', schema: { type: 'string', enum: ['RS2'] } },
          ],
          requestBody: { required: true, ...BYTES },
          responses: { '200': JSON_OK('blob_id and confirmation_certificate', { type: 'object' }), ...errors(400, 413, 429, 504) },
        },
      },
      '/v1/tip-config': {
        get: { operationId: 'tipConfig', 'x-tusk-route': 'tipConfig', summary: 'The relay tip configuration', responses: { '200': JSON_OK('no_tip', { type: 'string' }) } },
      },
      '/v1/ledger/transactions/{digest}': ledger('transaction', [pathParam('digest')]),
      '/v1/ledger/events/{digest}/{eventSeq}': ledger('event', [pathParam('digest'), pathParam('eventSeq')]),
      '/v1/ledger/objects/{object_id}': ledger('object', [OBJECT_ID]),
      '/v1/ledger/blobs/{blob_id}': ledger('blob', [BLOB_ID]),
      '/v1/ledger/expired': ledger('expired', []),
      '/v1/ledger/status': ledger('status', []),
      '/v1/ledger/verify': ledger('verify', []),
    },
    components: {
      securitySchemes: { jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        ApiError: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'status', 'message', 'details'],
              properties: { code: { type: 'integer' }, status: { type: 'string' }, message: { type: 'string' }, details: { type: 'array', items: { type: 'object' } } },
            },
          },
        },
        QuiltStoreResult: {
          type: 'object',
          properties: {
            blobStoreResult: { $ref: '#/components/schemas/BlobStoreResult' },
            storedQuiltBlobs: { type: 'array', items: { type: 'object', properties: { identifier: { type: 'string' }, quiltPatchId: { type: 'string' } } } },
          },
        },
        QuiltPatchItem: {
          type: 'object',
          properties: { identifier: { type: 'string' }, patch_id: { type: 'string' }, tags: { type: 'object', additionalProperties: { type: 'string' } } },
        },
        BlobStoreResult: {
          type: 'object',
          description: 'exactly one of newlyCreated, alreadyCertified (walrus.md §10.3)',
          properties: {
            newlyCreated: {
              type: 'object',
              properties: { blobObject: { type: 'object' }, resourceOperation: { type: 'object' }, cost: { type: 'integer' }, sharedBlobObject: { type: 'string' } },
            },
            alreadyCertified: {
              type: 'object',
              properties: { blobId: { type: 'string' }, event: { type: 'object' }, object: { type: 'string' }, endEpoch: { type: 'integer' } },
            },
          },
        },
      },
    },
  };
}

function QUILT_OP(operationId: string, description: string, security?: Json[]): Json {
  return {
    put: {
      operationId,
      'x-tusk-route': 'storeQuilt',
      ...(security ? { security } : {}),
      summary: 'Store several files as one quilt',
      description: `${description} Each form field is a file named by its field name; an optional \`_metadata\` field holds a JSON array of {identifier, tags}.`,
      parameters: [...STORE_QUERY, { name: 'quilt_version', in: 'query', schema: { type: 'string', enum: ['v1', 'V1', '1'] } }],
      requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } } } } },
      responses: { '200': JSON_OK('blobStoreResult and storedQuiltBlobs', { $ref: '#/components/schemas/QuiltStoreResult' }), ...errors(400, 401, 403, 413, 429, 504) },
    },
  };
}

function pathParam(name: string): Json {
  return { name, in: 'path', required: true, schema: { type: 'string' } };
}

function ledger(kind: string, parameters: unknown[]): Json {
  return {
    get: {
      operationId: `ledger-${kind}`,
      'x-tusk-route': 'ledger',
      summary: `Ledger look-up: ${kind}`,
      parameters,
      responses: { '200': JSON_OK('the ledger item as JSON', { type: 'object' }), ...errors(404) },
    },
  };
}
