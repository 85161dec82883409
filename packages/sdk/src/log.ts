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
}

/** JSON lines on stderr: stdout belongs to records. */
export const stderrSink: LogSink = (entry) => {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
};

export function createLogger(sink: LogSink, redactor: Redactor, base: Record<string, unknown> = {}): Logger {
  const write = (level: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    const entry = redactor.redact({ ...base, ...fields, level, message, time: new Date().toISOString() });
    sink(entry);
  };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (fields) => createLogger(sink, redactor, { ...base, ...fields }),
  };
}
