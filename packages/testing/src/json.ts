import { byKey } from '@plugboard/sdk';

/**
 * Deterministic JSON for files people review: object keys sorted at every
 * depth, two-space indentation and a final newline, so that re-recording an
 * unchanged scenario gives a byte-identical file and a changed one a small diff.
 *
 * For reading, not for hashing: the key order is the SDK's (`byKey`, UTF-16 code units, as
 * RFC 8785 sorts), but a JavaScript object lists integer-like keys (`"9"`, `"10"`) first in
 * numeric order whatever order they were added in, so this text is not RFC 8785 text. What
 * must be reproducible elsewhere (the approval digest) uses the SDK's `canonicalJson`.
 */

/** A deep copy with object keys sorted; `undefined` members are dropped as JSON drops them. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => inner !== undefined && typeof inner !== 'function')
    .sort(byKey);
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
}

/** Pretty JSON with sorted keys and a trailing newline. */
export function stableStringify(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}
