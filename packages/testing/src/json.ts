import { byKey } from '@plugboard/sdk';

/**
 * Deterministic JSON for files people review: object keys sorted at every
 * depth, two-space indentation and a final newline, so that re-recording an
 * unchanged scenario gives a byte-identical file and a changed one a small diff.
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
