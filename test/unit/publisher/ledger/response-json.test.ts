import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alreadyCertifiedJson, alreadyCertifiedObjectJson, newlyCreatedJson } from '../../../../src/publisher/ledger/index.js';
import { BLOB_A, makeFixture, QUORUM_1000, SMALL, type Fixture } from './ledger-fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('publisher response bodies (walrus.md §10.3)', () => {
  it('newlyCreated: exact field order, integers as numbers, no owner', async () => {
    fx.toEpoch(34);
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false, owner: `0x${'11'.repeat(32)}` });
    const cert = await fx.ledger.certifyBlob(reg.blobObject.id, QUORUM_1000);
    const body = JSON.stringify(newlyCreatedJson({ ...reg, blobObject: cert.blobObject }));
    expect(body).toBe(
      `{"newlyCreated":{"blobObject":{"id":"${reg.blobObject.id}","registeredEpoch":34,` +
        `"blobId":"${BLOB_A}","size":17,"encodingType":"RS2","certifiedEpoch":34,` +
        `"storage":{"id":"${reg.storage.id}","startEpoch":34,"endEpoch":35,"storageSize":66034000},` +
        `"deletable":false},"resourceOperation":{"registerFromScratch":{"encodedLength":66034000,"epochsAhead":1}},` +
        `"cost":132300}}`,
    );
  });

  it('newlyCreated after reusing a registration: reuseRegistration with the encoded length, cost 0', async () => {
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: true });
    const cert = await fx.ledger.certifyBlob(reg.blobObject.id, QUORUM_1000);
    const body = JSON.stringify(newlyCreatedJson({ ...reg, blobObject: cert.blobObject, cost: 0n, resourceOperation: { reuseRegistration: { encodedLength: 66034000 } } }));
    expect(body).toContain(`"deletable":true},"resourceOperation":{"reuseRegistration":{"encodedLength":66034000}},"cost":0}}`);
  });

  it('alreadyCertified, object variant: the Blob object in place of the event (walrus-sdk EventOrObjectId, flattened)', async () => {
    fx.toEpoch(34);
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 2, deletable: true });
    const cert = await fx.ledger.certifyBlob(reg.blobObject.id, QUORUM_1000);
    expect(JSON.stringify(alreadyCertifiedObjectJson(cert.blobObject))).toBe(
      `{"alreadyCertified":{"blobId":"${BLOB_A}","object":"${reg.blobObject.id}","endEpoch":36}}`,
    );
  });

  it('alreadyCertified: the certifying event and the end epoch', async () => {
    fx.toEpoch(34);
    const reg = await fx.ledger.registerBlob({ blobId: BLOB_A, ...SMALL, epochs: 1, deletable: false });
    const cert = await fx.ledger.certifyBlob(reg.blobObject.id, QUORUM_1000);
    const match = fx.ledger.findCertifiedPermanent(BLOB_A, 35)!;
    expect(JSON.stringify(alreadyCertifiedJson(BLOB_A, match))).toBe(
      `{"alreadyCertified":{"blobId":"${BLOB_A}","event":{"txDigest":"${cert.txDigest}","eventSeq":"0"},"endEpoch":35}}`,
    );
  });
});
