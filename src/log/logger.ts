// The process's one logger (pino): JSON lines with levels on stdout, or pino-pretty's coloured
// lines when stdout is a terminal. Secrets never go through it except where start-up prints them
// on purpose.

import pino, { type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import { BatchedFdDestination } from './log-destination.js';
import type { LogLine } from './log-line.js';

export type { LineLevel, LogLine } from './log-line.js';

export type Logger = PinoLogger;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new Error(`log-level: expected one of ${LOG_LEVELS.join(', ')}, got '${value}'`);
  }
  return value as LogLevel;
}

export interface LoggerOptions {
  level: LogLevel;
  /** human-readable lines; default: when stdout is a terminal */
  pretty?: boolean;
}

/** pino's isoTime, formatted once per millisecond: a busy server logs many lines in each one. */
let lastMs = -1;
let lastTime = '';
export function isoTimeField(now = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/** The destinations of the JSON-lines loggers, for the one writer that builds its own lines (the access log). */
const jsonSinks = new WeakMap<Logger, BatchedFdDestination>();

function pinoOptions(level: LogLevel): pino.LoggerOptions {
  return { level, base: { pid: process.pid }, timestamp: isoTimeField };
}

export function createLogger(options: LoggerOptions): Logger {
  const human = options.pretty ?? process.stdout.isTTY === true;
  if (human) {
    return pino(pinoOptions(options.level), pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid', hideObject: true, messageFormat: humanLine }));
  }
  return jsonLogger(options.level, new BatchedFdDestination(1));
}

/** A JSON-lines logger on `destination`, whose lines still go out when the process ends (exit, uncaught error). */
export function jsonLogger(level: LogLevel, destination: BatchedFdDestination): Logger {
  process.once('exit', () => destination.flushSync());
  const logger = pino(pinoOptions(level), destination);
  jsonSinks.set(logger, destination);
  return logger;
}

/**
 * Where `logger` writes its JSON lines, when it is a JSON-lines logger (not a terminal's) and `level`
 * is enabled: for a writer that builds lines in pino's format itself.
 */
export function jsonLineSink(logger: Logger, level: LogLevel): Pick<BatchedFdDestination, 'writeRecord'> | undefined {
  return logger.isLevelEnabled(level) ? jsonSinks.get(logger) : undefined;
}

/** One terminal line per record; an access-log record reads like a web server's. */
function humanLine(log: Record<string, unknown>, messageKey: string): string {
  const msg = String(log[messageKey] ?? '');
  if (msg !== 'request') return msg;
  const where = log.bucket === undefined ? '' : ` ${String(log.bucket)}${log.key === undefined ? '' : `/${String(log.key)}`}`;
  const error = log.error === undefined ? '' : ` ${String(log.error)}`;
  const id = log.reqId === undefined ? '' : ` ${String(log.reqId)}`;
  return `${String(log.face ?? '')} ${String(log.op)}${where} → ${String(log.status)}${error} in ${String(log.ms)} ms, ${String(log.bytesIn)} B in, ${String(log.bytesOut)} B out${id}`;
}

/** Adapts the logger to the line callbacks of the faces, threads and workers, each line at its level. */
export function lineLogger(logger: Logger): LogLine {
  return (line, level = 'info') => logger[level](line.replace(/^tusk: /, ''));
}

/** Writes out what the asynchronous destination still holds (before the process exits). */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
