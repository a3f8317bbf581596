// `tusk blob-id`, `tusk encode` and `tusk decode`: the RS2 codec from the command line
// (walrus.md §2–8, §11), like `walrus blob-id`. Each returns the process exit code: 0 done,
// 1 failed, 2 bad usage.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { openBlobCodec, type NativeBlobCodec } from '../rs2/codec.js';
import { isRs2Error } from '../rs2/rs2-native.js';
import { manifest, readMetadata, readSliver, sliverPairsPresent, writeSliverDir } from './sliver-dir.js';

/** Walrus Mainnet and Testnet run 1000 shards (walrus.md §2). */
export const DEFAULT_N_SHARDS = 1000;

export const BLOB_ID_USAGE = `Usage: tusk blob-id FILE [--n-shards N] [--json]

Prints the Walrus blob id of FILE (RS2 encoding, ${DEFAULT_N_SHARDS} shards unless --n-shards);
--json prints the id with its root hash and sizes.`;

export const ENCODE_USAGE = `Usage: tusk encode FILE --out DIR [--n-shards N]

Encodes FILE with RS2 and writes DIR/metadata.bcs, DIR/pair-<p>.primary.bcs and
DIR/pair-<p>.secondary.bcs for every sliver pair p (the bodies storage nodes receive), and
DIR/blob.json; prints the blob id.`;

export const DECODE_USAGE = `Usage: tusk decode DIR --out FILE

Rebuilds the blob from the primary sliver files in DIR (any n − 2f of them suffice; files that
do not match metadata.bcs are skipped) and checks it against the blob id before writing FILE.`;

class UsageError extends Error {}

const N_SHARDS_OPTION = { 'n-shards': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function parseNShards(text: string | undefined): number {
  if (text === undefined) return DEFAULT_N_SHARDS;
  const n = Number(text);
  // n < 4 has no recovery symbols (walrus.md §2).
  if (!/^\d+$/.test(text) || n < 4 || n > 65535) throw new UsageError(`--n-shards must be an integer in 4..65535, got '${text}'`);
  return n;
}

/** Parses argv, runs `body` with an open codec, maps failures to exit codes. */
async function command(
  name: string,
  usage: string,
  argv: string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'],
  body: (args: ReturnType<typeof parseArgs>, codec: () => Promise<NativeBlobCodec>) => Promise<number>,
): Promise<number> {
  let codec: NativeBlobCodec | undefined;
  try {
    const args = parseArgs({ args: argv, options: { ...N_SHARDS_OPTION, ...options }, allowPositionals: true, strict: true });
    if (args.values.help) {
      console.log(usage);
      return 0;
    }
    return await body(args, async () => (codec ??= await openBlobCodec()));
  } catch (e) {
    const usageProblem = e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(`tusk ${name}: ${(e as Error).message}${usageProblem ? `\n\n${usage}` : ''}`);
    return usageProblem ? 2 : 1;
  } finally {
    await codec?.close();
  }
}

function onePositional(args: ReturnType<typeof parseArgs>, what: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`expected one ${what}, got ${args.positionals.length}`);
  return args.positionals[0]!;
}

function requiredString(args: ReturnType<typeof parseArgs>, name: string): string {
  const value = args.values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function runBlobIdCli(argv: string[]): Promise<number> {
  return command('blob-id', BLOB_ID_USAGE, argv, { json: { type: 'boolean' } }, async (args, codec) => {
    const file = onePositional(args, 'FILE');
    const nShards = parseNShards(args.values['n-shards'] as string | undefined);
    const info = await (await codec()).blobId(await readFile(file), nShards);
    console.log(args.values.json ? JSON.stringify(manifest(info), null, 2) : info.blobIdText);
    return 0;
  });
}

export function runEncodeCli(argv: string[]): Promise<number> {
  return command('encode', ENCODE_USAGE, argv, { out: { type: 'string' } }, async (args, codec) => {
    const file = onePositional(args, 'FILE');
    const out = requiredString(args, 'out');
    const nShards = parseNShards(args.values['n-shards'] as string | undefined);
    const blob = await (await codec()).encode(await readFile(file), nShards);
    await writeSliverDir(out, blob);
    console.log(blob.blobIdText);
    return 0;
  });
}

export function runDecodeCli(argv: string[]): Promise<number> {
  return command('decode', DECODE_USAGE, argv, { out: { type: 'string' } }, async (args, codec) => {
    const dir = onePositional(args, 'DIR');
    const out = requiredString(args, 'out');
    if (args.values['n-shards'] !== undefined) throw new UsageError('decode reads the shard count from DIR/metadata.bcs');
    const rs2 = await codec();
    const metadata = await readMetadata(dir);
    const nShards = metadataShardCount(metadata);
    const problem = await rs2.metadataProblem(metadata, nShards);
    if (problem) throw new Error(`${dir}/metadata.bcs is invalid: ${problem}`);
    const slivers = new Map<number, Buffer>();
    // Ascending pairs put the systematic slivers first; n − 2f valid ones are enough (walrus.md §11).
    const need = nShards - 2 * Math.floor((nShards - 1) / 3);
    for (const pair of await sliverPairsPresent(dir, 'primary')) {
      if (slivers.size === need) break;
      const sliver = await readSliver(dir, pair, 'primary');
      const why = await rs2.sliverProblem(metadata, pair, 'primary', sliver);
      if (why) console.error(`tusk decode: skipping primary sliver ${pair}: ${why}`);
      else slivers.set(pair, sliver);
    }
    try {
      await writeFile(out, await rs2.decode(metadata, slivers, nShards));
    } catch (e) {
      if (isRs2Error(e, 'NOT_ENOUGH_SLIVERS')) throw new Error(`${e.message} (valid primary sliver files in ${dir})`);
      throw e;
    }
    return 0;
  });
}

/** n from BlobMetadataWithId: the ULEB128 hash count after blob id, version, type and length (walrus.md §8.2). */
function metadataShardCount(metadata: Buffer): number {
  let n = 0;
  for (let i = 0, at = 42; i < 3 && at < metadata.length; i++, at++) {
    n += (metadata[at]! & 0x7f) * 2 ** (7 * i);
    if ((metadata[at]! & 0x80) === 0) return n;
  }
  throw new Error('metadata.bcs is too short or malformed');
}
