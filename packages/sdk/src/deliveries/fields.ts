/**
 * The timestamp and the event id a signed text is made of, read from what a sender wrote. Both
 * are bounded; an event id holding the text's separator is refused, since the signed text would
 * then read two ways (`a:b` + `c` and `a` + `b:c` sign the same bytes).
 */

/** The most characters of an event id. */
export const MAX_EVENT_ID_LENGTH = 200;

/** Whole seconds since the epoch, at most 12 digits: a 13-digit value is milliseconds. */
export const MAX_TIMESTAMP_DIGITS = 12;

const TIMESTAMP = /^[0-9]{1,12}$/;
/** Visible ASCII: no space or control character, and the same bytes in any header encoding. */
const EVENT_ID = /^[\x21-\x7e]+$/;

/** The seconds a timestamp header says, or undefined when it is not whole seconds. */
export function parseTimestamp(text: string | undefined): number | undefined {
  return text !== undefined && TIMESTAMP.test(text) ? Number(text) : undefined;
}

/** Whether a timestamp a sender is about to sign is whole seconds, as `parseTimestamp` reads them. */
export function isTimestampSeconds(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && String(value).length <= MAX_TIMESTAMP_DIGITS;
}

/** What is wrong with an event id, or undefined when it is one: visible ASCII, 1 to 200 characters, without `separator`. */
export function eventIdProblem(value: unknown, separator: string): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > MAX_EVENT_ID_LENGTH) return `must be at most ${MAX_EVENT_ID_LENGTH} characters`;
  if (!EVENT_ID.test(value)) return 'must be visible ASCII, without spaces or control characters';
  if (value.includes(separator)) return `must not hold '${separator}', which separates the signed text's parts`;
  return undefined;
}
