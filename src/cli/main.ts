// The `tusk` command: serve (what `npm start` runs) and bench; later issues add more subcommands.

import { loadConfig, SERVE_USAGE } from '../config.js';
import { startServer } from '../main.js';

const USAGE = `Usage: tusk <command> [options]

Commands:
  serve     serve S3 (default command)
  bench     load-test any S3 endpoint (tusk bench --help)

${SERVE_USAGE}`;

async function serve(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(SERVE_USAGE);
    return 0;
  }
  const config = loadConfig(argv);
  const server = await startServer(config);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`tusk: ${signal}: draining in-flight requests`);
      server.close().then(resolve, (e) => {
        console.error(`tusk: shutdown failed: ${(e as Error).message}`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  console.log('tusk: stopped');
  return 0;
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
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return 0;
    default:
      if (command.startsWith('-')) return serve(argv);
      console.error(`tusk: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
