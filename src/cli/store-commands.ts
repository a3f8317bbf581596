// `tusk scrub` and `tusk compact`: offline maintenance of a data directory's storage engine. They
// take the data directory's lock, so they refuse while a server (or another of them) has it open.

import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import { lockDataDir } from '../store/data-dir-lock.js';
import { NODES_DIR } from '../base/layout.js';
import { fastestCrc32c } from '../store/crc32c.js';
import { openStore } from '../store/index.js';
import { scrubSegments } from '../store/scrub.js';

const SCRUB_USAGE = `Usage: tusk scrub [--data-dir DIR] [--json]

Checks every record of the data directory's segments (and of its embedded storage nodes) against
its CRC32C, then each segment file's size against the index, and names what is damaged: objects
whose bytes fail their checksum (CORRUPT) or are gone (MISSING). Exit status 1 when anything is.`;

const COMPACT_USAGE = `Usage: tusk compact [--data-dir DIR] [--min-dead R]

Compacts the data directory's segments now: every segment with at least R (default 0.1) of its
bytes dead has its live records moved and is deleted.`;

/** The engine directories of a data directory: its own and each embedded storage node's. */
function engineDirs(dataDir: string): string[] {
  const dirs = existsSync(join(dataDir, 'segments')) ? [dataDir] : [];
  const nodes = join(dataDir, NODES_DIR);
  if (existsSync(nodes)) {
    for (const name of readdirSync(nodes).sort()) if (existsSync(join(nodes, name, 'segments'))) dirs.push(join(nodes, name));
  }
  return dirs;
}

function dataDirOf(value: string | undefined): string {
  return resolve(value ?? process.env.TUSK_DATA_DIR ?? './data');
}

export async function runScrubCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(SCRUB_USAGE);
    return 0;
  }
  const crc32c = await fastestCrc32c();
  let damaged = false;
  const reports = [];
  const dataDir = dataDirOf(values['data-dir']);
  const lock = lockDataDir(dataDir);
  for (const dir of engineDirs(dataDir)) {
    const report = scrubSegments(dir, crc32c);
    reports.push({ dir, ...report });
    damaged ||= report.corrupt.length > 0 || report.damagedSegments.length > 0 || report.missing.length > 0;
    if (values.json) continue;
    console.log(`${dir}: ${report.segments} segment(s), ${report.records} record(s), ${report.bytes} body bytes checked`);
    for (const c of report.corrupt) console.log(`  CORRUPT ${c.bucket}/${c.key} (segment ${c.segment}, offset ${c.offset})`);
    for (const d of report.damagedSegments) console.log(`  DAMAGED segment ${d.segment} at ${d.offset}: ${d.reason}`);
    for (const s of report.shortSegments) {
      console.log(`  SHORT segment ${s.segment}: ${s.size === 0 ? 'its file is gone' : `${s.size} of the ${s.end} bytes the index says it holds`}`);
    }
    for (const m of report.missing) console.log(`  MISSING ${m.name}: ${m.missing} bytes of its body are gone`);
  }
  lock.release();
  if (values.json) console.log(JSON.stringify(reports, null, 2));
  else console.log(damaged ? 'scrub: damage found' : 'scrub: no damage found');
  return damaged ? 1 : 0;
}

export async function runCompactCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, 'min-dead': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(COMPACT_USAGE);
    return 0;
  }
  const minDeadRatio = Number(values['min-dead'] ?? '0.1');
  if (!(minDeadRatio >= 0 && minDeadRatio <= 1)) {
    console.error(`tusk compact: --min-dead: expected a number from 0 to 1, got '${values['min-dead']}'`);
    return 2;
  }
  const dataDir = dataDirOf(values['data-dir']);
  const lock = lockDataDir(dataDir);
  for (const dir of engineDirs(dataDir)) {
    const store = await openStore({ dataDir: dir, durability: 'strict' });
    try {
      const r = await store.compact({ minDeadRatio, bytesPerSecond: Number.MAX_SAFE_INTEGER });
      console.log(`${dir}: ${r.segmentsCompacted} segment(s) compacted, ${r.segmentsDeleted} deleted, ${r.recordsMoved} record(s) (${r.bytesMoved} bytes) moved${r.corruptRecords ? `, ${r.corruptRecords} corrupt record(s) left in place` : ''}`);
    } finally {
      await store.close();
    }
  }
  lock.release();
  return 0;
}
