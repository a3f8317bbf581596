// The `tusk` command: serve (what `npm start` runs) and bench; later issues add more subcommands.

import { join, resolve } from 'node:path';
import { loadConfig, SERVE_USAGE, VERSION } from '../config/config.js';
import { LEDGER_DIR } from '../base/layout.js';
import { startServer } from '../main.js';
import { createLogger, flushLogger } from '../log/logger.js';

const USAGE = `Usage: tusk <command> [options]

Commands:
  serve          serve S3 and the Walrus publisher (default command)
  bench          load-test any S3 endpoint (tusk bench --help)
  storage-node   run one Walrus storage node as its own process (tusk storage-node --help)
  blob-id        print a file's Walrus blob id (tusk blob-id FILE [--n-shards N])
  encode         RS2-encode a file into metadata and sliver files (tusk encode FILE --out DIR)
  decode         rebuild a file from sliver files (tusk decode DIR --out FILE)
  mfa            provision TOTP devices for MFA delete (tusk mfa --help)
  ledger         look up the publisher's ledger: tx, event, object, blob, status, verify (tusk ledger --help)
  scrub          check every stored record against its checksum, offline (tusk scrub --help)
  compact        give back the space of deleted and overwritten data now, offline (tusk compact --help)
  admin          accounts, keys, bucket usage and quotas, server info over the admin API (tusk admin --help)

${SERVE_USAGE}`;

async function serve(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(SERVE_USAGE);
    return 0;
  }
  if (argv.includes('--version')) {
    console.log(`tusk ${VERSION}`);
    return 0;
  }
  const config = loadConfig(argv);
  const logger = createLogger({ level: config.ops.logLevel });
  const server = await startServer(config, logger).catch(async (e) => {
    logger.fatal(`start-up failed: ${(e as Error).message}`);
    await flushLogger(logger);
    throw e;
  });
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info(`${signal}: draining in-flight requests (at most ${config.shutdownGraceMs / 1000} s)`);
      server.close(config.shutdownGraceMs).then(resolve, (e) => {
        logger.error(`shutdown failed: ${(e as Error).message}`);
        process.exitCode = 1;
        resolve();
      });
    };
    // SIGHUP reloads TLS (systemctl reload); without TLS it must not end the process (its default)
    process.on('SIGHUP', () => {
      if (!config.tls) {
        logger.info('SIGHUP: nothing to reload (no TLS)');
        return;
      }
      server.reloadTls().then(
        () => logger.info('SIGHUP: TLS certificate and key reloaded'),
        (e) => logger.error(`SIGHUP: TLS reload failed, keeping the old certificate: ${(e as Error).message}`),
      );
    });
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  logger.info('stopped');
  await flushLogger(logger);
  return 0;
}

/** `tusk ledger [--data-dir D] <command>`: the ledger lives in <data-dir>/ledger. */
async function ledger(argv: string[]): Promise<number> {
  const { runLedgerCli } = await import('../publisher/ledger/cli.js');
  const at = argv.indexOf('--data-dir');
  const dataDir = at >= 0 ? argv[at + 1] : process.env.TUSK_DATA_DIR ?? './data';
  const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  if (!dataDir) {
    console.error('tusk ledger: --data-dir needs a directory');
    return 2;
  }
  return runLedgerCli(rest, join(resolve(dataDir), LEDGER_DIR));
}

export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'bench': {
      const { runBenchCli } = await import('../bench/cli.js');
      return runBenchCli(rest);
    }
    case 'storage-node': {
      const { runStorageNodeCli } = await import('../publisher/cli/storage-node.js');
      return runStorageNodeCli(rest);
    }
    case 'ledger':
      return ledger(rest);
    case 'scrub':
    case 'compact': {
      const cli = await import('./store-commands.js');
      return command === 'scrub' ? cli.runScrubCli(rest) : cli.runCompactCli(rest);
    }
    case 'mfa': {
      const { runMfaCli } = await import('./mfa.js');
      return runMfaCli(rest);
    }
    case 'admin': {
      const { runAdminCli } = await import('./admin.js');
      return runAdminCli(rest);
    }
    case 'blob-id':
    case 'encode':
    case 'decode': {
      const cli = await import('../publisher/cli/index.js');
      const run = { 'blob-id': cli.runBlobIdCli, encode: cli.runEncodeCli, decode: cli.runDecodeCli }[command];
      return run(rest);
    }
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return 0;
    case '--version':
    case 'version':
      console.log(`tusk ${VERSION}`);
      return 0;
    default:
      if (command.startsWith('-')) return serve(argv);
      console.error(`tusk: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
