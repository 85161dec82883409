import type { NewerThan } from '../definition/action.js';
import { rank } from './watermark.js';

/**
 * The newer-than parameter's value for a checkpoint at `at`, in the declared format and at least
 * `earlierMs` before it; undefined when `at` cannot be written so (a number as `iso`, a text
 * that is not an instant). A number cursor is in the format's unit (seconds for `unix`,
 * milliseconds for `unix-ms`); `as-is` sends the value as the provider wrote it.
 */
export function newerThanBound(newerThan: NewerThan, at: string | number): string | number | undefined {
  const { format = 'as-is', earlierMs = 0 } = newerThan;
  if (format === 'as-is') return at;
  if (typeof at === 'number') {
    // Whole seconds, rounded up: a bound rounded toward the checkpoint would leave out what earlierMs is for.
    if (format === 'unix') return at - Math.ceil(earlierMs / 1000);
    return format === 'unix-ms' ? at - earlierMs : undefined;
  }
  const from = rank(at) - earlierMs;
  if (Number.isNaN(from)) return undefined;
  if (format === 'iso') return new Date(from).toISOString();
  // Rounded down, never toward zero: the bound stays at least earlierMs before the checkpoint.
  return format === 'unix' ? Math.floor(from / 1000) : from;
}
