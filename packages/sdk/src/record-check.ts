import type { z } from 'zod';

/**
 * Records are validated with the action's entity schema, and zod builds a new object for
 * every record it parses: a large read then allocates about twice what parsing the JSON does,
 * and the young generation (peak memory) grows with it. Most entities are plain data, and
 * for a record such a schema accepts zod's output is the record itself, rebuilt. So a plain
 * entity schema is compiled once into a test that reads a record without allocating, and a
 * record that passes it goes on as it is.
 *
 * The test is exact or stricter, never looser: it passes a record only when zod would accept
 * it and return an equal value. Anything that can change a value (defaults, transforms,
 * coercion, trimming and other overwriting checks, refinements, unions, catch, pipes, lazy
 * schemas, an object whose unknown keys zod would strip) makes the schema not compilable, or
 * the record fail the test, and zod parses it as before, with its exact output and issues.
 * The string, number and length checks run through zod's own check functions.
 */

export type RecordTest = (value: unknown) => boolean;

/** Deeper schemas go through zod: the test recurses once per level of the schema, never of the record. */
const MAX_SCHEMA_DEPTH = 32;

/** Check kinds that only test a value (zod's `_zod.def.check`); `overwrite` (trim, case), `custom` (refine) and others are left to zod. */
const TESTING_CHECKS = new Set([
  'min_length',
  'max_length',
  'length_equals',
  'greater_than',
  'less_than',
  'multiple_of',
  'number_format',
  'string_format',
]);

/** String formats whose check only tests the text (`url` may normalise it, so it is left to zod). */
const TESTING_FORMATS = new Set([
  'datetime',
  'date',
  'time',
  'duration',
  'uuid',
  'guid',
  'email',
  'regex',
  'ipv4',
  'ipv6',
  'cidrv4',
  'cidrv6',
  'cuid',
  'cuid2',
  'ulid',
  'nanoid',
  'xid',
  'ksuid',
  'e164',
  'emoji',
  'base64',
  'base64url',
  'lowercase',
  'uppercase',
  'starts_with',
  'ends_with',
  'includes',
  'hex',
]);

/** The parts of zod's internals the test reads (`zod/v4/core`, stable for library authors). */
interface Internals {
  def: {
    type: string;
    coerce?: boolean;
    checks?: Check[];
    innerType?: ZodLike;
    element?: ZodLike;
    shape?: Record<string, ZodLike>;
    catchall?: ZodLike;
  };
  traits: Set<string>;
  values?: Set<unknown>;
}
interface ZodLike {
  _zod: Internals;
}
interface Check {
  _zod: {
    def: { check: string; format?: string; when?: (payload: Payload) => boolean };
    check(payload: Payload): unknown;
  };
}
interface Payload {
  value: unknown;
  issues: unknown[];
}

// One payload for every check: a test runs to its end synchronously, and a passing check adds nothing to it.
const payload: Payload = { value: undefined, issues: [] };

const compiled = new WeakMap<object, RecordTest | null>();

/** The allocation-free test of a plain entity schema, or undefined when zod must parse its records. */
export function recordTest(schema: z.ZodType): RecordTest | undefined {
  let test = compiled.get(schema);
  if (test === undefined) {
    test = compile(schema as unknown as ZodLike, 0) ?? null;
    compiled.set(schema, test);
  }
  return test ?? undefined;
}

function compile(schema: ZodLike, depth: number): RecordTest | undefined {
  const zod = schema?._zod;
  if (!zod || depth > MAX_SCHEMA_DEPTH) return undefined;
  const checks = testingChecks(zod);
  if (!checks) return undefined;
  const base = compileType(zod, depth);
  if (!base) return undefined;
  if (checks.length === 0) return base;
  return (value) => base(value) && passes(checks, value);
}

/** The checks zod runs after the type, when each only tests; undefined when one may change the value. */
function testingChecks(zod: Internals): Check[] | undefined {
  // A string format schema is its own first check, as zod runs it.
  const own = zod.traits.has('$ZodCheck') ? [{ _zod: zod } as unknown as Check] : [];
  const checks = [...own, ...(zod.def.checks ?? [])];
  for (const check of checks) {
    const def = check._zod.def;
    if (!TESTING_CHECKS.has(def.check)) return undefined;
    if (def.check === 'string_format' && !TESTING_FORMATS.has(def.format ?? '')) return undefined;
  }
  return checks;
}

function passes(checks: Check[], value: unknown): boolean {
  payload.value = value;
  for (const check of checks) {
    const { when } = check._zod.def;
    if (when && !when(payload)) continue;
    check._zod.check(payload);
    if (payload.issues.length > 0) {
      payload.issues.length = 0;
      payload.value = undefined;
      return false;
    }
  }
  payload.value = undefined;
  return true;
}

function compileType(zod: Internals, depth: number): RecordTest | undefined {
  const def = zod.def;
  if (def.coerce) return undefined;
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string';
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'null':
      return (value) => value === null;
    case 'unknown':
    case 'any':
      return () => true;
    case 'enum':
    case 'literal': {
      const values = zod.values;
      return values ? (value) => values.has(value) : undefined;
    }
    case 'nullable': {
      const inner = compile(def.innerType!, depth + 1);
      return inner && ((value) => value === null || inner(value));
    }
    case 'optional': {
      // An exact optional refuses a present undefined, and a defaulted inner substitutes one: zod's.
      if (zod.traits.has('$ZodExactOptional') || def.innerType?._zod.def.type === 'default') return undefined;
      const inner = compile(def.innerType!, depth + 1);
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'array': {
      const element = compile(def.element!, depth + 1);
      if (!element) return undefined;
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let index = 0; index < value.length; index += 1) if (!element(value[index])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(zod, depth);
    default:
      return undefined;
  }
}

function compileObject(zod: Internals, depth: number): RecordTest | undefined {
  const { shape = {}, catchall } = zod.def;
  const catchallType = catchall?._zod.def.type;
  // Unknown keys pass through a loose object as they are; zod drops them from any other (or refuses them), so such a record is zod's.
  const unknownKeysPass = catchallType === 'unknown' || catchallType === 'any';
  if (catchall && !unknownKeysPass && catchallType !== 'never') return undefined;
  if (Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return undefined;
  const tests: RecordTest[] = [];
  for (const key of keys) {
    const test = compile(shape[key]!, depth + 1);
    if (!test) return undefined;
    tests.push(test);
  }
  // zod refuses an absent key unless its schema may be absent (`optin`), even one that takes undefined (`z.unknown()`).
  const required = keys.map((key) => (shape[key]!._zod as { optin?: string }).optin === undefined);
  const known = new Set(keys);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    // zod builds a plain object and never copies a `__proto__` key: anything else is its to rebuild.
    const prototype = Object.getPrototypeOf(value);
    if ((prototype !== Object.prototype && prototype !== null) || Object.hasOwn(value, '__proto__')) return false;
    const record = value as Record<string, unknown>;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index]!;
      const field = record[key];
      if (!tests[index]!(field) || (field === undefined && required[index] && !(key in record))) return false;
    }
    if (!unknownKeysPass) {
      for (const key in record) if (!known.has(key)) return false;
    }
    return true;
  };
}
