import { describe, expect, it } from 'vitest';
import { PublisherError } from '../../../../src/publisher/service/errors.js';
import { parseStoreQuery } from '../../../../src/publisher/service/store-query.js';

const ADDRESS = `0x${'aB'.repeat(32)}`;

function reasonOf(raw: string): string {
  try {
    parseStoreQuery(raw, 53);
  } catch (e) {
    expect(e).toBeInstanceOf(PublisherError);
    return (e as PublisherError).code;
  }
  return 'accepted';
}

describe('PUT /v1/blobs query (walrus.md §10.2, seed interface B)', () => {
  it('seed defaults: epochs 1, permanent, publisher keeps the object', () => {
    expect(parseStoreQuery('', 53)).toEqual({ epochs: 1, deletable: false, sendObjectTo: undefined, force: false, share: false, reuseResources: false });
  });

  it('reads every supported parameter', () => {
    expect(parseStoreQuery(`epochs=53&deletable=true&send_object_to=${ADDRESS}&force=true&encoding_type=RS2&reuse_resources=false`, 53)).toEqual({
      epochs: 53,
      deletable: true,
      sendObjectTo: ADDRESS.toLowerCase(),
      force: true,
      share: false,
      reuseResources: false,
    });
    expect(parseStoreQuery('share=true', 53).share).toBe(true);
    expect(parseStoreQuery('reuse_resources=true', 53).reuseResources).toBe(true);
    expect(parseStoreQuery('share=false&quilt_version=1', 53).share).toBe(false);
    expect(parseStoreQuery('permanent=true&deletable=false', 53).deletable).toBe(false);
    // permanent=false is honoured: a deletable blob, as on Walrus since v1.33.
    expect(parseStoreQuery('permanent=false', 53).deletable).toBe(true);
    expect(parseStoreQuery('permanent=false&deletable=true', 53).deletable).toBe(true);
    expect(parseStoreQuery('epochs=%35', 53).epochs).toBe(5);
  });

  it.each([
    ['epochs=0', 'INVALID_EPOCHS'],
    ['epochs=54', 'INVALID_EPOCHS'],
    ['epochs=4294967295', 'INVALID_EPOCHS'],
    ['epochs=4294967296', 'MALFORMED_REQUEST'],
    ['epochs=-1', 'MALFORMED_REQUEST'],
    ['epochs=abc', 'MALFORMED_REQUEST'],
    ['epochs=1.5', 'MALFORMED_REQUEST'],
    ['epochs=', 'MALFORMED_REQUEST'],
    ['epochs=+1', 'MALFORMED_REQUEST'],
    ['epochs=1&epochs=2', 'MALFORMED_REQUEST'],
    ['deletable=yes', 'MALFORMED_REQUEST'],
    ['deletable=1', 'MALFORMED_REQUEST'],
    ['deletable=True', 'MALFORMED_REQUEST'],
    ['deletable', 'MALFORMED_REQUEST'],
    ['force=no', 'MALFORMED_REQUEST'],
    ['deletable=true&permanent=true', 'INVALID_BLOB_PERSISTENCE'],
    ['send_object_to=0x1', 'MALFORMED_REQUEST'],
    [`send_object_to=${'ab'.repeat(32)}`, 'MALFORMED_REQUEST'],
    [`send_object_to=0x${'ab'.repeat(31)}`, 'MALFORMED_REQUEST'],
    [`send_object_to=0x${'g'.repeat(64)}`, 'MALFORMED_REQUEST'],
    [`send_object_to=${ADDRESS}00`, 'MALFORMED_REQUEST'],
    ['send_object_to=', 'MALFORMED_REQUEST'],
    ['encoding_type=RedStuff', 'MALFORMED_REQUEST'],
    [`share=true&send_object_to=${ADDRESS}`, 'MALFORMED_REQUEST'],
    ['share=yes', 'MALFORMED_REQUEST'],
    ['quilt_version=v2', 'MALFORMED_REQUEST'],
    ['unknown=1', 'MALFORMED_REQUEST'],
    ['epochs=%ZZ', 'MALFORMED_REQUEST'],
  ])('%s → %s', (raw, reason) => {
    expect(reasonOf(raw)).toBe(reason);
  });

  it('the maximum follows the ledger', () => {
    expect(parseStoreQuery('epochs=1000', 1000).epochs).toBe(1000);
    expect(reasonOf('epochs=53')).toBe('accepted');
  });
});
