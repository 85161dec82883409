import { type Clock, systemClock } from './clock.js';
import type { Redactor } from './secrets.js';

/** Structured log of one run. Every entry passes through the run's redactor. */

/** The level of a log entry, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log entry, already redacted, as a `LogSink` receives it. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  time: string;
  [field: string]: unknown;
}

/** Where a run's log entries go (`RunOptions.log`). */
export type LogSink = (entry: LogEntry) => void;

/** `ctx.log`: structured logging of a run; every entry passes through the run's redactor. */
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

/** A logger whose entries below `level` are dropped before anything is built; entries are stamped with `clock`'s time. */
export function createLogger(
  sink: LogSink,
  redactor: Redactor,
  base: Record<string, unknown> = {},
  level: LogLevel = 'debug',
  clock: Clock = systemClock,
): Logger {
  return new RunLogger(sink, redactor, base, RANK[level], clock);
}

class RunLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly redactor: Redactor,
    private readonly base: Record<string, unknown>,
    private readonly least: number,
    private readonly clock: Clock,
  ) {}

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  child(fields: Record<string, unknown>): Logger {
    return new RunLogger(this.sink, this.redactor, { ...this.base, ...fields }, this.least, this.clock);
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.least;
  }

  private write(level: LogLevel, message: string, fields: Record<string, unknown> = {}): void {
    if (RANK[level] < this.least) return;
    this.sink(
      this.redactor.redact({ ...this.base, ...fields, level, message, time: new Date(this.clock.now()).toISOString() }),
    );
  }
}
