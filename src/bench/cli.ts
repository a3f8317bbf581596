import { writeFile } from 'node:fs/promises';
import { formatComparison, readResult } from './compare.js';
import { parseBenchArgs, RUN_USAGE } from './options.js';
import { formatReport } from './report.js';
import { runBench } from './scenario.js';

const USAGE = `${RUN_USAGE}
       tusk bench compare A.json B.json

exit code: 0 run without errors, 2 some operations failed, 1 usage or setup error`;

/** `tusk bench ...` (argv after "bench"); returns the exit code. */
export async function runBenchCli(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return first === undefined ? 1 : 0;
  }
  try {
    if (first === 'compare') {
      if (rest.length !== 2) throw new Error('usage: tusk bench compare A.json B.json');
      const [a, b] = await Promise.all([readResult(rest[0]!), readResult(rest[1]!)]);
      process.stdout.write(`${formatComparison(a, b)}\n`);
      return 0;
    }
    const { options, jsonPath, quiet } = parseBenchArgs(first === 'run' ? rest : argv);
    const log = quiet ? undefined : (line: string) => process.stderr.write(`[bench] ${line}\n`);
    const result = await runBench(options, log, quiet ? () => {} : progressLine(log!));
    process.stdout.write(`${formatReport(result)}\n`);
    if (jsonPath) await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
    return result.total.errorCount > 0 ? 2 : 0;
  } catch (err) {
    process.stderr.write(`tusk bench: ${(err as Error).message}\n`);
    return 1;
  }
}

/** On a terminal, one line rewritten in place; otherwise a log line per tick. */
function progressLine(log: (line: string) => void): (line: string | null) => void {
  if (!process.stderr.isTTY) return (line) => line !== null && log(line);
  let shown = false;
  return (line) => {
    if (line === null) {
      if (shown) process.stderr.write('\n');
      shown = false;
      return;
    }
    process.stderr.write(`\r\x1b[K[bench] ${line}`);
    shown = true;
  };
}
