// `tusk serve`'s settings of the publisher, the web console and the static website endpoint,
// declared once each (src/config/flag.ts). Settings that only mean something together (the
// network and its wallet, the JWT ones) are checked together by loadConfig.

import { flag, optionalText, text, type FlagSection } from './flag.js';
import { list, parseBool, parseDuration, parseOptionalListen, parseOrigins, parsePositive, parseShards, parseSize, parseSubWallets } from './values.js';

export const PUBLISHER = {
  title: 'Publisher (Walrus-compatible blob store and aggregator):',
  flags: {
    'publisher-listen': flag({
      arg: 'H:P', default: '127.0.0.1:31415', parse: (v) => parseOptionalListen(v, 'publisher-listen'),
      help: 'publisher + aggregator listener; off disables the publisher',
      doc: 'publisher + aggregator listener; `off` disables the publisher',
    }),
    network: flag({
      arg: 'NET', default: 'embedded', parse: text,
      help: "where blobs go: embedded (Tusk's own nodes and ledger), testnet, mainnet, local (an in-memory Walrus network for the official SDK; prints its client config), or a Walrus client config file (client_config.yaml)",
      doc: "where blobs go: `embedded` (Tusk's own nodes and ledger), `testnet`, `mainnet`, `local` (a local Walrus network for the official SDK, in memory, Node 22+), or a Walrus `client_config.yaml` (see \"Walrus networks\")",
    }),
    wallet: flag({
      arg: 'FILE', shown: '`~/.sui/sui_config/client.yaml`', parse: optionalText,
      help: 'Walrus networks: the paying Sui wallet, a client.yaml or a sui.keystore',
      doc: 'Walrus networks: the paying wallet, a Sui `client.yaml` or `sui.keystore`',
    }),
    'wallet-address': flag({ arg: 'A', shown: 'the active address', parse: optionalText, help: "Walrus networks: the wallet's address to pay from" }),
    'sui-rpc': flag({ arg: 'URL', shown: "the network's", parse: optionalText, help: "Walrus networks: the Sui full node's gRPC URL (Node 22+)" }),
    'sub-wallets': flag({
      arg: 'N', shown: '8', parse: parseSubWallets,
      help: "Walrus networks: sub-wallets, derived from the wallet's key and funded from it, that stores run on in parallel, 1-64 (as the Walrus daemon's --n-clients)",
      doc: "Walrus networks: sub-wallets, derived from the wallet's key and funded from it, that stores run on in parallel (1 to 64; the Walrus daemon's `--n-clients`)",
    }),
    'endpoint-keys': flag({
      arg: 'K[,K]', multiple: true, shown: 'generated', parse: list,
      help: 'publisher endpoint keys (one generated on first start is kept in the data directory)',
    }),
    'max-blob-size': flag({
      arg: 'SIZE', default: '10MiB', parse: (v) => parseSize(v, 'max blob size'),
      help: "largest accepted blob body (Walrus's default; quilt forms up to 100 MiB)",
      doc: "largest publisher body (Walrus's default; quilt forms up to 100 MiB). An encode works in memory the codec keeps for the next one: at most 256 MiB of it stays allocated while idle (~60 MB per 10 MiB blob in flight at 1 000 shards)",
    }),
    'jwt-decode-secret': flag({
      arg: 'S', parse: optionalText,
      help: 'also accept stores at /v1/blobs and /v1/quilts with a JWT signed with S (text, or 0x + hex), as the Walrus publisher',
      doc: 'accept JWT-authorized stores at `/v1/blobs` and `/v1/quilts` signed with S (text, or `0x` + hex), as the Walrus publisher (see above)',
    }),
    // checked with the secret (parseJwt): without one they mean nothing
    'jwt-algorithm': flag({ arg: 'ALG', default: 'HS256', parse: text, help: "the JWT's algorithm: HS256, HS384 or HS512" }),
    'jwt-expiring-sec': flag({ arg: 'N', parse: optionalText, help: 'a JWT must have exp − iat = N', doc: 'a JWT must have `exp` − `iat` = N' }),
    'jwt-verify-upload': flag({
      switch: true, default: 'false', shown: 'false', parse: (v) => parseBool(v, 'jwt-verify-upload'),
      help: "check a store's epochs, size and send_object_to against the JWT's claims",
      doc: "check a store's epochs, size and `send_object_to` against the JWT's claims",
    }),
  },
} satisfies FlagSection;

export const EMBEDDED_NETWORK = {
  title: 'Embedded network:',
  flags: {
    'n-shards': flag({
      arg: 'N', default: '1000', shown: '1000', parse: parseShards,
      help: 'shard count (1000 = Walrus mainnet, so blob ids match it); at least 4',
      doc: 'embedded network: shard count (1000 = Walrus mainnet, so blob ids match it); at least 4',
    }),
    'storage-nodes': flag({
      arg: 'URL[,URL]', multiple: true, shown: '10 nodes in-process', parse: list,
      help: 'remote tusk storage-node processes instead of the embedded nodes',
      doc: 'remote `tusk storage-node` processes instead of the embedded nodes',
    }),
    'epoch-length': flag({
      arg: 'D', default: '1d', parse: (v) => parseDuration(v, 'epoch length'),
      help: 'ledger epoch length, e.g. 1d, 2h, 90s (and --network local\'s)',
      doc: 'ledger epoch length (`90s`, `2h`, `1d`); with `--network local`, the local network ends an epoch this often',
    }),
    'max-epochs-ahead': flag({
      arg: 'N', default: '53', parse: (v) => parseMaxEpochsAhead(v),
      help: 'the longest storage the ledger (or --network local) sells, in epochs (blobs are bought for this long); debug only, e.g. 3',
      doc: 'the longest storage the embedded ledger (or `--network local`) sells, in epochs (1-1000, as Walrus mainnet: 53); blobs are bought for this long. Debug only: with `--epoch-length 2s --max-epochs-ahead 3` storage lapses, and is renewed, in seconds',
    }),
  },
} satisfies FlagSection;

export const WALRUS_RENEWAL = {
  title: 'Renewal of storage class WALRUS (S3 objects on Walrus):',
  flags: {
    'walrus-renew-interval': flag({
      arg: 'D', default: '10m', parse: (v) => parseDuration(v, 'walrus-renew-interval'),
      help: "time between two passes of the renewal worker over WALRUS objects' blobs",
      doc: "time between two passes of the renewal worker, which extends the blobs WALRUS objects still use before their end epoch (see *S3 objects on Walrus*)",
    }),
    'walrus-renew-ahead': flag({
      arg: 'N', default: '2', parse: (v) => parsePositive(v, 'walrus-renew-ahead'),
      help: 'extend a blob once it ends within N epochs, back to the longest storage the network sells',
      doc: 'a blob ending within `N` epochs is extended back to the longest storage the network sells (`max_epochs_ahead`)',
    }),
    'walrus-renew-max-wal': flag({
      arg: 'FROST', default: 'off', parse: (v) => (v === 'off' ? undefined : parseFrost(v)),
      help: 'the most one renewal pass may spend, in FROST (1 WAL = 10^9 FROST); extensions beyond it are skipped and logged',
      doc: 'the most one renewal pass may spend, in FROST (1 WAL = 10⁹ FROST); an extension that would go beyond it is skipped, logged (warn) and counted; `off`: no limit',
    }),
  },
} satisfies FlagSection;

function parseMaxEpochsAhead(value: string): number {
  const n = parsePositive(value, 'max-epochs-ahead');
  // the contract's cap (MAX_MAX_EPOCHS_AHEAD, walrus.md §9.3)
  if (n > 1000) throw new Error(`max-epochs-ahead: at most 1000, got '${value}'`);
  return n;
}

function parseFrost(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new Error(`walrus-renew-max-wal: expected a whole number of FROST or off, got '${value}'`);
  return BigInt(value);
}

export const CONSOLE = {
  title: 'Console (a web console, an S3 client in the browser):',
  flags: {
    'console-listen': flag({
      arg: 'H:P', default: '127.0.0.1:9001', parse: (v) => parseOptionalListen(v, 'console-listen'),
      help: "the web console's listener (with --tls-cert, HTTPS like the others); off disables it",
      doc: "the web console's listener (with `--tls-cert`, HTTPS like the others); `off` disables it",
    }),
    'console-origin': flag({
      arg: 'URL[,URL]', multiple: true, shown: "the listener's", parse: (v) => parseOrigins(list(v)),
      help: "origins the console is opened from, allowed by S3's CORS; by default the listener's own, e.g. http://127.0.0.1:9001 and http://localhost:9001",
      doc: 'origins the console is opened from (`https://console.example.com`), for which S3 answers CORS; by default those of its listener: for a loopback address `127.0.0.1`, `localhost` and `[::1]` on its port, for `0.0.0.0` those and every interface address, else its own address. A console behind a DNS name or a proxy needs this',
    }),
  },
} satisfies FlagSection;

export const WEBSITE = {
  title: 'Static websites (buckets with PutBucketWebsite, served to anonymous GET and HEAD):',
  flags: {
    'website-listen': flag({
      arg: 'H:P', default: 'off', parse: (v) => parseOptionalListen(v, 'website-listen'),
      help: 'the static website endpoint, e.g. 127.0.0.1:9002; off unless set, since what it serves is public',
      doc: 'the static website endpoint (see *Static websites*); off unless set, since what it serves is public',
    }),
    'website-domain': flag({
      arg: 'D[,D]', multiple: true, parse: list,
      help: "Host <bucket>.D names the bucket; any other Host is taken whole as the bucket's name, as for a CNAME (www.example.com)",
      doc: "website domains: Host `<bucket>.<D>` names the bucket; any other Host is taken whole as the bucket's name (CNAME style)",
    }),
  },
} satisfies FlagSection;
