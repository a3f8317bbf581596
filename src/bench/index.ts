/** Public surface of the load generator (used by src/cli and bench/side-by-side.mjs). */
export { runBenchCli } from './cli.js';
export { compareResults, formatComparison, readResult } from './compare.js';
export { ContentSource, objectKey, sizeFromKey } from './content.js';
export { DEFAULTS, parseBenchArgs, type BenchOptions } from './options.js';
export { formatReport } from './report.js';
export type { BenchResult, OpResult } from './result.js';
export { runBench } from './scenario.js';
export { processCpuMs } from './server-cpu.js';
export { parseByteSize, parseSizeDistribution } from './sizes.js';
export { fixed, markdownTable, ms } from './table.js';
export { signRequest } from './client.js';
export { SigV4Signer, UNSIGNED_PAYLOAD } from './sigv4-client.js';
