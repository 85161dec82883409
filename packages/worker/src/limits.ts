import { InvalidInputError } from '@plugboard/sdk';
import { StoreValueTooLargeError } from './errors.js';

/**
 * How much the PostgreSQL stores keep, checked before any statement: a runaway checkpoint or
 * result is refused with a typed error instead of filling the database.
 */
export const LIMITS = {
  /** A stream name, an idempotency key or a connection id, in UTF-8 bytes. */
  keyBytes: 1024,
  /** A checkpoint, an idempotency record or a decision, as JSON. */
  valueBytes: 1024 * 1024,
  /** A token set, as JSON before it is sealed. */
  tokenBytes: 64 * 1024,
} as const;

/** `\u0000` in JSON text that is an escape of its own, not the tail of an escaped backslash. */
const NUL_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u0000/;

function refuseNul(subject: string, field: string): never {
  throw new InvalidInputError(subject, [
    { path: field, message: 'holds a NUL character, which PostgreSQL cannot keep' },
  ]);
}

/** A key that fits a text column: bounded, without NUL. */
export function checkedKey(key: string, subject: string, field: string): string {
  const size = Buffer.byteLength(key, 'utf8');
  if (size > LIMITS.keyBytes) throw new StoreValueTooLargeError(subject, field, size, LIMITS.keyBytes);
  if (key.includes('\0')) refuseNul(subject, field);
  return key;
}

/** A value as the JSON text a jsonb column keeps (undefined as null): bounded, without NUL. */
export function jsonText(value: unknown, subject: string, field: string, limit: number = LIMITS.valueBytes): string {
  const text = JSON.stringify(value ?? null);
  const size = Buffer.byteLength(text, 'utf8');
  if (size > limit) throw new StoreValueTooLargeError(subject, field, size, limit);
  if (NUL_ESCAPE.test(text)) refuseNul(subject, field);
  return text;
}
