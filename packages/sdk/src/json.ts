/**
 * The two walks over JSON-like values that everything else builds on: a
 * search of every string (values and object keys) with where it is, and a
 * deep copy that may replace strings, keys and whole members on the way.
 * Redaction, rule 10, the testing kit's fixtures and the catalogue use these.
 */

/** Object keys and array indices from the root to a value. */
export type JsonPath = readonly (string | number)[];

/** `a.b[1].c`: a path as people read it. */
export function formatJsonPath(path: JsonPath, root = ''): string {
  let text = root;
  for (const step of path) text += typeof step === 'number' ? `[${step}]` : text === '' ? step : `.${step}`;
  return text;
}

/** An array or an object literal: what the walks go into. Anything else (a Date, an Error, a Map) is a leaf. */
function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Calls `visit` with every string of a value, object keys included (`isKey`),
 * and the path to it (for a key, the path ends with the key). A visit that
 * returns true stops the walk, and `someJsonString` returns true. The path
 * array is reused: copy it to keep it.
 */
export function someJsonString(value: unknown, visit: (text: string, path: JsonPath, isKey: boolean) => boolean | void): boolean {
  const path: (string | number)[] = [];
  const ancestors = new Set<object>();
  const walk = (current: unknown): boolean => {
    if (typeof current === 'string') return visit(current, path, false) === true;
    if (!isContainer(current) || ancestors.has(current)) return false;
    ancestors.add(current);
    let found = false;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length && !found; index += 1) {
        path.push(index);
        found = walk(current[index]);
        path.pop();
      }
    } else {
      for (const key of Object.keys(current)) {
        path.push(key);
        found = visit(key, path, true) === true || walk(current[key]);
        path.pop();
        if (found) break;
      }
    }
    ancestors.delete(current);
    return found;
  };
  return walk(value);
}

/** How `mapJson` changes what it copies. */
export interface JsonMapper {
  /** A string's replacement. */
  text?(text: string): unknown;
  /** An object key's replacement. */
  key?(key: string): string;
  /** A member's whole replacement, or `undefined` to copy it by these same rules. */
  member?(key: string, inner: unknown): unknown;
  /** The replacement of a leaf that is not a string (a number, a Date, an Error ...); default: itself. */
  other?(value: unknown): unknown;
}

/** What a value that contains itself is copied as. */
export const CIRCULAR = '[Circular]';

/** A deep copy of arrays and object literals, passing strings, keys, members and other leaves through `mapper`. */
export function mapJson(value: unknown, mapper: JsonMapper): unknown {
  const ancestors = new Set<object>();
  const copy = (current: unknown): unknown => {
    if (typeof current === 'string') return mapper.text ? mapper.text(current) : current;
    if (!isContainer(current)) return mapper.other ? mapper.other(current) : current;
    if (ancestors.has(current)) return CIRCULAR;
    ancestors.add(current);
    let out: unknown;
    if (Array.isArray(current)) {
      out = current.map(copy);
    } else {
      const object: Record<string, unknown> = {};
      for (const key of Object.keys(current)) {
        const inner = current[key];
        const replaced = mapper.member?.(key, inner);
        object[mapper.key ? mapper.key(key) : key] = replaced === undefined ? copy(inner) : replaced;
      }
      out = object;
    }
    ancestors.delete(current);
    return out;
  };
  return copy(value);
}
