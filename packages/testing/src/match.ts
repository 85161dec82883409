import { REDACTED } from '@plugboard/sdk/host';

/**
 * Comparing what a replayed action sends (or returns) with what was recorded.
 * A redacted value in the recording is a wildcard: `[REDACTED]` alone matches
 * any value of any type, and inside a longer string it matches any text, so a
 * secret in a query or body (which the fixture never holds) still matches.
 */

/** True when `actual` is the recorded text, each `[REDACTED]` in it standing for any text. */
export function textMatches(recorded: string, actual: string): boolean {
  if (!recorded.includes(REDACTED)) return recorded === actual;
  // A plain scan, no regular expression: the fixed parts in order, the first at the
  // start and the last at the end; taking each middle part at its first place is
  // enough when the only wildcard is "any text".
  const parts = recorded.split(REDACTED);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (actual.length < first.length + last.length || !actual.startsWith(first) || !actual.endsWith(last)) return false;
  const end = actual.length - last.length;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = actual.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** Deep comparison of JSON values with the redaction marker as a wildcard. */
export function valueMatches(recorded: unknown, actual: unknown): boolean {
  if (recorded === REDACTED) return true;
  if (typeof recorded === 'string') return typeof actual === 'string' && textMatches(recorded, actual);
  if (Array.isArray(recorded)) {
    return (
      Array.isArray(actual) &&
      actual.length === recorded.length &&
      recorded.every((item, index) => valueMatches(item, actual[index]))
    );
  }
  if (recorded !== null && typeof recorded === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const expected = Object.entries(recorded as Record<string, unknown>).filter(([, value]) => value !== undefined);
    const got = Object.entries(actual as Record<string, unknown>).filter(([, value]) => value !== undefined);
    if (expected.length !== got.length) return false;
    const lookup = new Map(got);
    return expected.every(([key, value]) => lookup.has(key) && valueMatches(value, lookup.get(key)));
  }
  return Object.is(recorded, actual);
}

function splitPath(path: string): { pathname: string; query: [string, string][] } {
  const at = path.indexOf('?');
  if (at === -1) return { pathname: path, query: [] };
  return { pathname: path.slice(0, at), query: [...new URLSearchParams(path.slice(at + 1))] };
}

/**
 * Path and query of a request against a recorded one. The path compares as
 * text; query parameters compare by name and decoded value, in any order.
 */
export function pathMatches(recorded: string, actual: string): boolean {
  const want = splitPath(recorded);
  const got = splitPath(actual);
  if (!textMatches(want.pathname, got.pathname) && !textMatches(safeDecode(want.pathname), safeDecode(got.pathname)))
    return false;
  if (want.query.length !== got.query.length) return false;
  const left = [...got.query];
  for (const [name, value] of want.query) {
    const index = left.findIndex(
      ([otherName, otherValue]) => textMatches(name, otherName) && textMatches(value, otherValue),
    );
    if (index === -1) return false;
    left.splice(index, 1);
  }
  return true;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A request body against a recorded one. nock hands over parsed JSON when the
 * body is JSON, else the text; an absent recorded body means an empty one.
 */
export function bodyMatches(recorded: unknown, bodyType: 'json' | 'text' | undefined, actual: unknown): boolean {
  const empty = actual === undefined || actual === '';
  if (recorded === undefined || recorded === '') return empty;
  if (bodyType === 'text' || typeof recorded === 'string') {
    const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
    return typeof recorded === 'string' && textMatches(recorded, text ?? '');
  }
  return valueMatches(recorded, actual);
}
