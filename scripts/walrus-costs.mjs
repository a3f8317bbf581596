#!/usr/bin/env node
// What a WALRUS-class S3 object costs (issue 34, README "S3 objects on Walrus"): its encoded size
// and the WAL it pays, on the embedded network's defaults and at Walrus mainnet's prices, computed
// with the publisher's own functions (dist/): encodedLength (RS2, walrus.md §9.1), registrationCost
// (§9.2), the quilt layout of src/publisher/quilt, the S3 face's patch labels, and the batcher's
// limits (an object of at most 1 MiB is a quilt patch; a quilt gathers at most 16 MiB of patches and
// as many as its columns less one). An object above 1 MiB is cut into blobs of --max-blob-size.
//
//   npm run build && node scripts/walrus-costs.mjs [--mainnet-storage-price FROST] [--mainnet-write-price FROST]
//
// Mainnet's prices change every epoch (storage nodes vote them): the defaults are the figures of
// `walrus info` on mainnet that the Walrus docs show (see MAINNET below); pass today's to update.

import { parseArgs } from 'node:util';

const dist = new URL('../dist/', import.meta.url);
const costs = await import(new URL('publisher/ledger/costs.js', dist).href);
const { DEFAULT_MAX_EPOCHS_AHEAD } = await import(new URL('publisher/ledger/ledger.js', dist).href);
const { DEFAULT_MAX_BODY_BYTES } = await import(new URL('publisher/service/publisher-server.js', dist).href);
const { PATCH_MAX_SIZE, QUILT_MAX_BYTES } = await import(new URL('publisher/service/quilt-batcher.js', dist).href);
const { encodeQuilt, QuiltFormatError } = await import(new URL('publisher/quilt/quilt-format.js', dist).href);
const { walrusPatchLabel } = await import(new URL('s3/walrus-objects.js', dist).href);

/**
 * Walrus mainnet, `walrus info` as shown in the Walrus docs ("View System Information",
 * docs.wal.app/docs/system-overview/view-system-info; MystenLabs/walrus docs): epoch 1 from
 * 2025-03-25, 1000 shards, 53 epochs ahead, 14-day epochs, "Price per encoded storage unit:
 * 0.0001 WAL" (printed rounded: taken as 100 000 FROST) and "Additional price for each write:
 * 20,000 FROST", per 1 MiB storage unit.
 */
const MAINNET = { nShards: 1000, storagePricePerUnit: 100_000n, writePricePerUnit: 20_000n, maxEpochsAhead: 53, source: 'walrus info in the Walrus docs (mainnet, epoch 1, 2025-03-25)' };
const EMBEDDED = { nShards: 1000, storagePricePerUnit: costs.DEFAULT_STORAGE_PRICE_PER_UNIT, writePricePerUnit: costs.DEFAULT_WRITE_PRICE_PER_UNIT, maxEpochsAhead: DEFAULT_MAX_EPOCHS_AHEAD };

const { values } = parseArgs({ options: { 'mainnet-storage-price': { type: 'string' }, 'mainnet-write-price': { type: 'string' } } });
const mainnet = {
  ...MAINNET,
  storagePricePerUnit: BigInt(values['mainnet-storage-price'] ?? MAINNET.storagePricePerUnit),
  writePricePerUnit: BigInt(values['mainnet-write-price'] ?? MAINNET.writePricePerUnit),
};
if (values['mainnet-storage-price'] || values['mainnet-write-price']) mainnet.source = 'prices given on the command line';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** The quilt blobs `count` objects of `size` bytes become, as the batcher stores them (halving a batch that does not fit). */
function quiltBlobs(count, size, nShards) {
  const files = Array.from({ length: count }, (_, i) => {
    const key = `photos/2026/11/IMG_${String(i).padStart(5, '0')}.jpg`;
    const attrs = { contentType: 'image/jpeg', checksum: { algorithm: 'CRC64NVME', type: 'FULL_OBJECT', value: 'AAAAAAAAAAA=' } };
    const label = walrusPatchLabel('my-bucket', key, attrs, '"0123456789abcdef0123456789abcdef"', 1_796_000_000_000);
    return { identifier: label.identifier, contents: Buffer.alloc(size), tags: label.tags };
  });
  const blobs = [];
  const store = (batch) => {
    try {
      blobs.push(encodeQuilt(batch, nShards).blob.length);
    } catch (e) {
      if (!(e instanceof QuiltFormatError) || batch.length === 1) throw e;
      const half = Math.ceil(batch.length / 2);
      store(batch.slice(0, half));
      store(batch.slice(half));
    }
  };
  store(files);
  return blobs;
}

/** The blob lengths of one object of `size` bytes above the patch limit: cut at `maxBlobSize`. */
function objectBlobs(size, maxBlobSize) {
  const out = [];
  for (let at = 0; at < size; at += maxBlobSize) out.push(Math.min(maxBlobSize, size - at));
  return out;
}

/** Per object: encoded bytes, storage units, and FROST per epoch of storage and once for the write. */
function share(blobLengths, objects, net) {
  let encoded = 0;
  let units = 0n;
  for (const length of blobLengths) {
    const e = costs.encodedLength(length, net.nShards);
    encoded += e;
    units += costs.storageUnits(e);
  }
  // registrationCost(e, epochs) = units · (storage price · epochs + write price): one epoch less none gives the per-epoch part
  const cost = (epochs) => blobLengths.reduce((sum, length) => sum + costs.registrationCost(costs.encodedLength(length, net.nShards), epochs, net), 0n);
  const perEpoch = cost(1) - cost(0);
  return { encoded: encoded / objects, units: Number(units) / objects, perEpoch: Number(perEpoch) / objects, write: Number(cost(0)) / objects, bought: Number(cost(net.maxEpochsAhead)) / objects };
}

const maxPatches = (nShards) => costs.shardParameters(nShards).nSecondary - 1;
const cases = (net) => {
  const fullSmall = maxPatches(net.nShards);
  const fullMiB = Math.floor(QUILT_MAX_BYTES / PATCH_MAX_SIZE);
  return [
    { object: '4 KiB', stored: 'alone (a quilt of 1 patch)', blobs: quiltBlobs(1, 4 * KiB, net.nShards), objects: 1 },
    { object: '4 KiB', stored: 'in a quilt of 16 (16 PUTs in flight)', blobs: quiltBlobs(16, 4 * KiB, net.nShards), objects: 16 },
    { object: '4 KiB', stored: `in a full quilt of ${fullSmall}`, blobs: quiltBlobs(fullSmall, 4 * KiB, net.nShards), objects: fullSmall },
    { object: '1 MiB', stored: 'alone (a quilt of 1 patch)', blobs: quiltBlobs(1, MiB, net.nShards), objects: 1 },
    { object: '1 MiB', stored: `in a full quilt of ${fullMiB} (16 MiB of patches)`, blobs: quiltBlobs(fullMiB, MiB, net.nShards), objects: fullMiB },
    { object: '1 GiB', stored: `${Math.ceil(GiB / DEFAULT_MAX_BODY_BYTES)} blobs of at most ${DEFAULT_MAX_BODY_BYTES / MiB} MiB (the default)`, blobs: objectBlobs(GiB, DEFAULT_MAX_BODY_BYTES), objects: 1 },
    { object: '1 GiB', stored: 'one blob (at `--max-blob-size 1GiB`)', blobs: objectBlobs(GiB, GiB), objects: 1 },
  ];
};

const wal = (frost) => {
  const w = frost / Number(costs.FROST_PER_WAL);
  return w >= 0.01 ? w.toFixed(4) : w.toPrecision(3);
};
const bytes = (n) => (n >= GiB ? `${(n / GiB).toFixed(2)} GiB` : n >= MiB ? `${(n / MiB).toFixed(2)} MiB` : `${(n / KiB).toFixed(1)} KiB`);

function table(net) {
  const rows = cases(net).map((c) => {
    const s = share(c.blobs, c.objects, net);
    return `| ${c.object} | ${c.stored} | ${c.blobs.length} | ${bytes(s.encoded)} | ${s.units.toFixed(s.units < 10 ? 2 : 0)} | ${wal(s.perEpoch)} | ${wal(s.write)} | ${wal(s.bought)} |`;
  });
  return [
    `| object | stored as | blobs | encoded size per object | storage units (1 MiB) per object | WAL per epoch | WAL once (write) | WAL for ${net.maxEpochsAhead} epochs (what a PUT buys) |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const priceLine = (net) => `${net.nShards} shards, ${net.storagePricePerUnit} FROST per storage unit per epoch, ${net.writePricePerUnit} FROST per unit written, bought for ${net.maxEpochsAhead} epochs`;
console.log(`Embedded network (defaults: ${priceLine(EMBEDDED)}; one epoch is --epoch-length, 1 day by default):\n`);
console.log(table(EMBEDDED));
console.log(`\nWalrus mainnet (${priceLine(mainnet)}; epochs of 14 days; prices: ${mainnet.source}):\n`);
console.log(table(mainnet));
