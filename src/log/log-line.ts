// The line-oriented log the faces, threads and background workers write to (no pino in them):
// each line carries its severity, so that `--log-level warn` keeps what an operator must see.

/** pino's levels that the server's own lines take. */
export type LineLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * One log line at `level` (default info): an internal error or detected corruption is `error`, a
 * condition that refuses service (a full disk, a node failing) `warn`, routine events `info`.
 */
export type LogLine = (line: string, level?: LineLevel) => void;
