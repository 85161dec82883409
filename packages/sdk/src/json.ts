import { excerpt } from './excerpt.js';

/**
 * The two walks over JSON-like values that everything else builds on: a
 * search of every string (values and object keys) with where it is, and a
 * deep copy that may replace strings, keys and whole members on the way.
 * Redaction, rule 10, the testing kit's fixtures and the catalogue use these.
 * A third, `jsonProblem`, checks that a caller's value is plain JSON data of a
 * bounded depth before anything walks it recursively.
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
export function someJsonString(
  value: unknown,
  visit: (text: string, path: JsonPath, isKey: boolean) => boolean | void,
): boolean {
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
      // for...in with hasOwn reads the same keys as Object.keys without an array per object.
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
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

/** How deep a caller's value may nest (objects and arrays within each other), as `jsonProblem` checks by default. */
export const MAX_JSON_DEPTH = 64;

/** Why a value is not plain JSON data, and where. */
export interface JsonProblem {
  /** From the root to the value at fault; its key when a property could not be read. */
  path: JsonPath;
  message: string;
}

/** An object literal made in any realm: its prototype is `Object.prototype` of some realm, or none. */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === null || prototype === Object.prototype) return true;
  return (
    Object.getPrototypeOf(prototype) === null &&
    (prototype as { constructor?: { name?: unknown } }).constructor?.name === 'Object'
  );
}

/** `null`, `an array`, `a string`, `a Date`, `a Widget instance`: what a value is, for a message. */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object': {
      let name: unknown;
      try {
        name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
      } catch {
        name = undefined;
      }
      if (typeof name !== 'string' || name === '' || name === 'Object') return 'an object';
      const builtIn = Object.prototype.toString.call(value).slice(8, -1) === name;
      return `a ${name}${builtIn ? '' : ' instance'}`;
    }
    case 'undefined':
      return 'undefined';
    case 'number':
      return Number.isFinite(value) ? 'a number' : String(value);
    case 'bigint':
      return 'a bigint';
    default:
      return `a ${typeof value}`;
  }
}

/** RFC 8785 (and so the approval digest) takes only well-formed Unicode text. */
const LONE_SURROGATE = 'a lone surrogate (half of a UTF-16 pair) is not Unicode text; JSON of it has no canonical form';

/** ES2024's `String.prototype.isWellFormed` (in every Node the kit supports), which the ES2023 typings lack. */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Keys that reach an object's prototype when a value is copied or merged key by key: JSON text
 * may carry them (`JSON.parse` makes `__proto__` an own key), a record schema copies them, and a
 * deep merge follows `constructor.prototype` to `Object.prototype`.
 */
const PROTO_KEY = "the key '__proto__' is not taken: copied into an object, it would set that object's prototype";
const CONSTRUCTOR_PROTOTYPE =
  "the key 'prototype' inside 'constructor' is not taken: a deep merge would follow it to an object's prototype";

/** Why one value is not JSON by itself (a container is judged by its members), or undefined. */
function leafProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return wellFormed(value) ? undefined : LONE_SURROGATE;
    case 'boolean':
    case 'undefined':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${String(value)} is not a JSON number`;
    case 'object':
      if (value === null || Array.isArray(value) || isPlainObject(value)) return undefined;
      return value instanceof Date
        ? 'a Date is not a JSON value; pass the time as an ISO 8601 string'
        : `${describeJsonType(value)} is not a JSON value; pass plain objects, arrays, strings, numbers, booleans and null`;
    default:
      return `${describeJsonType(value)} is not a JSON value`;
  }
}

function reason(error: unknown): string {
  return excerpt(error instanceof Error ? error.message : String(error));
}

/**
 * True for the common case, a plain object whose members are all plain JSON leaves (most inputs
 * and settings): it is fine as it is, and the walk below, which allocates its stacks, is spared.
 * Anything else (a container inside, a doubtful key or leaf, a getter that throws) says false
 * and gets the whole walk, which names the problem.
 */
function flatAndPlain(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  try {
    if (!isPlainObject(value)) return false;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (key === '__proto__' || !wellFormed(key)) return false;
      const member = (value as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') return false;
      if (leafProblem(member) !== undefined) return false;
    }
  } catch {
    return false;
  }
  return true;
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  next: number;
  length: number;
}

/**
 * The first reason a caller's value is not plain JSON data, with its path; undefined when it
 * is. Refused: a number that is not finite (NaN, Infinity), a bigint, a function, a symbol,
 * an object that is not a plain object or an array (a Date, a Map, a class instance), a string
 * or key with a lone surrogate (no RFC 8785 form), a `__proto__` key and a `prototype` key in a
 * `constructor` member (they reach an object's prototype when copied or merged), a value
 * that contains itself, a property whose getter throws, and nesting deeper than `maxDepth`
 * objects and arrays. `undefined` members pass (JSON leaves them out). Walks with a stack of
 * its own, so a value nested any deeper than the call stack allows is refused, not a crash.
 */
export function jsonProblem(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | undefined {
  if (flatAndPlain(value)) return undefined;
  const path: (string | number)[] = [];
  const frames: Frame[] = [];
  const ancestors = new Set<object>();
  const problem = (message: string): JsonProblem => ({ path: [...path], message });
  let current: unknown = value;
  let pending = true;
  for (;;) {
    if (pending) {
      pending = false;
      let leaf: string | undefined;
      try {
        leaf = leafProblem(current);
      } catch (error) {
        return problem(`could not be read (${reason(error)})`);
      }
      if (leaf) return problem(leaf);
      if (current !== null && typeof current === 'object') {
        if (ancestors.has(current)) return problem('the value contains itself');
        if (frames.length >= maxDepth) return problem(`nested deeper than ${maxDepth} levels of objects and arrays`);
        let frame: Frame;
        try {
          const container = current as Record<string, unknown> | unknown[];
          const keys = Array.isArray(container) ? undefined : Object.keys(container);
          frame = { container, keys, next: 0, length: keys ? keys.length : (container as unknown[]).length };
        } catch (error) {
          return problem(`could not be read (${reason(error)})`);
        }
        if (frame.keys) {
          const inConstructor = path.length > 0 && path.at(-1) === 'constructor';
          for (const key of frame.keys) {
            const why = !wellFormed(key)
              ? `the key has ${LONE_SURROGATE}`
              : key === '__proto__'
                ? PROTO_KEY
                : inConstructor && key === 'prototype'
                  ? CONSTRUCTOR_PROTOTYPE
                  : undefined;
            if (why) {
              path.push(key);
              return problem(why);
            }
          }
        }
        frames.push(frame);
        ancestors.add(current);
      } else if (frames.length > 0) {
        path.pop();
      }
    }
    const top = frames.at(-1);
    if (!top) return undefined;
    if (top.next < top.length) {
      const step = top.keys ? top.keys[top.next]! : top.next;
      top.next += 1;
      path.push(step);
      try {
        current = (top.container as Record<string | number, unknown>)[step];
      } catch (error) {
        return problem(`could not be read (${reason(error)})`);
      }
      pending = true;
    } else {
      frames.pop();
      ancestors.delete(top.container);
      if (frames.length > 0) path.pop();
    }
  }
}
