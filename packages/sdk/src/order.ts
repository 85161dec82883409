/**
 * Locale-free string order: UTF-16 code units, what `<` compares (and the key order of
 * RFC 8785 canonical JSON). The same on every machine whatever its locale, so sorted
 * output (digests, catalogues, fixtures, records) is reproducible byte for byte.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares `[key, value]` entries by key with `compareText`: for `Object.entries(...).sort(byKey)`. */
export function byKey(a: readonly [string, unknown], b: readonly [string, unknown]): number {
  return compareText(a[0], b[0]);
}
