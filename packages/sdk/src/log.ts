import type { Redactor } from './secrets.js';

/** Structured log of one run. Every entry passes through the run's redactor. */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  level: LogLevel;
  message: string;
  time: string;
  [field: string]: unknown;
}

export type LogSink = (entry: LogEntry) => void;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds these fields to every entry. */
  child(fields: Record<string, unknown>): Logger;
  /** True when entries of this level reach the sink: build costly fields only then. */
  enabled(level: LogLevel): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** JSON lines on stderr: stdout belongs to records. */
export const stderrSink: LogSink = (entry) => {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
};

/** A logger whose entries below `level` are dropped before anything is built. */
export function createLogger(sink: LogSink, redactor: Redactor, base: Record<string, unknown> = {}, level: LogLevel = 'debug'): Logger {
  const least = RANK[level];
  const write = (entryLevel: LogLevel) => {
    if (RANK[entryLevel] < least) return () => undefined;
    return (message: string, fields: Record<string, unknown> = {}) => {
      sink(redactor.redact({ ...base, ...fields, level: entryLevel, message, time: new Date().toISOString() }));
    };
  };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (fields) => createLogger(sink, redactor, { ...base, ...fields }, level),
    enabled: (entryLevel) => RANK[entryLevel] >= least,
  };
}
