/**
 * HMAC over a signed text's parts, fed one after the other (a body is never copied into a
 * larger buffer), and the constant-time comparison of a digest with the values a sender gave.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The hash functions a signature may use. */
export type HmacAlgorithm = 'sha256' | 'sha1';

/** HMAC of the parts in order, keyed with `key` (a string as its UTF-8 bytes). */
export function hmacOf(
  algorithm: HmacAlgorithm,
  key: string | Uint8Array,
  parts: readonly (string | Uint8Array)[],
): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether one of `given` is `expected`. Each is compared in constant time (`timingSafeEqual` on
 * buffers of one length; a length is no secret), and all are compared, whichever matches.
 */
export function matchesAny(expected: Uint8Array, given: readonly Uint8Array[]): boolean {
  let found = false;
  for (const value of given) if (value.length === expected.length && timingSafeEqual(value, expected)) found = true;
  return found;
}
