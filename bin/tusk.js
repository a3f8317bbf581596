#!/usr/bin/env node
// Runs the compiled CLI (npm start / npm test build dist/ first).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('tusk: dist/ is missing; run `npm run setup` (or `npm start`) first');
  process.exit(1);
}
const { main } = await import(entry.href);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    console.error(`tusk: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  },
);
