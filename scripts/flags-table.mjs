// The README's table of `tusk serve` settings, generated from their declarations (src/config/flags*.ts,
// compiled to dist/ by `node scripts/setup.mjs`): `--write` rewrites the README's section between the
// flags markers; without it, exits 1 when the README differs (test/unit/config-flags.test.ts checks too).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { markdownTable, withFlagsTable } = await import(`${root}dist/config/flag.js`);
const { SERVE_SECTIONS } = await import(`${root}dist/config/flags.js`);

const readmePath = `${root}README.md`;
const readme = readFileSync(readmePath, 'utf8');
const wanted = withFlagsTable(readme, markdownTable([...SERVE_SECTIONS]));
if (wanted === readme) {
  console.log('README: the flags table matches the declarations');
} else if (process.argv.includes('--write')) {
  writeFileSync(readmePath, wanted);
  console.log('README: flags table rewritten');
} else {
  console.error('README: the flags table differs from src/config/flags*.ts; run node scripts/flags-table.mjs --write');
  process.exitCode = 1;
}
