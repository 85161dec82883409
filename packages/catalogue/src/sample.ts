/**
 * A value that matches a JSON Schema, the same on every call: the schema's own example,
 * default, const or first enum value where it has one, else built from its type (a string named
 * after its field, `example-project-id`; a number of 1 moved within its bounds). Optional
 * properties are filled (or left out, for an example input), arrays have one item (or their
 * `minItems`), `$ref`s to `#/...` are followed in the root schema, and a recursive schema
 * stops after a few levels (deeper, optional properties and items are left out).
 */

/** A JSON Schema object. */
export type Schema = { [keyword: string]: unknown };

export interface SampleOptions {
  /** Only the properties an object requires: an example input rather than a full record. */
  requiredOnly?: boolean;
}

const MAX_DEPTH = 6;
/** Combinations followed without going deeper, before a schema is taken to combine itself. */
const MAX_HOPS = 64;

/** Properties that point to a further page: a sample is the last page, or a client pages forever. */
const NEXT_PAGE = /^(next|next_?cursor|next_?page(_?token|_?url)?|next_?link|has_?more|more)$/i;

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  uuid: '00000000-0000-4000-8000-000000000000',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  email: 'user@example.com',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'AA==',
};

export function sampleOf(schema: Schema | undefined, options: SampleOptions = {}): unknown {
  return sample(schema, 0, schema, options, undefined);
}

/** The schema a `#/...` reference points to in the root, else the schema itself. */
function resolved(schema: Schema | undefined, root: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let hops = 0; hops < 32 && typeof current?.$ref === 'string' && current.$ref.startsWith('#/'); hops += 1) {
    const path = current.$ref
      .slice(2)
      .split('/')
      .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = path.reduce<unknown>(
      (at, key) => (at && typeof at === 'object' ? (at as Schema)[key] : undefined),
      root,
    ) as Schema | undefined;
  }
  return current;
}

/**
 * `name`: the property (or the array's property) the value is for, which a string sample is named
 * after; `hops`: the combinations (`allOf`, `oneOf`, `anyOf`) followed on the way, which go no deeper.
 */
function sample(
  given: Schema | undefined,
  depth: number,
  root: Schema | undefined,
  options: SampleOptions,
  name: string | undefined,
  hops = 0,
): unknown {
  const schema = resolved(given, root);
  if (schema === undefined || typeof schema !== 'object' || schema === null) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  // A schema that requires or combines itself has no finite value: give up far below the stack's limit.
  if (depth > 4 * MAX_DEPTH || hops > MAX_HOPS) return null;
  const next: Next = (part, deeper = 0, named = name) => sample(part, depth + deeper, root, options, named);
  const combined = (part: Schema | undefined) => sample(part, depth, root, options, name, hops + 1);
  if (Array.isArray(schema.allOf)) return mergeAll((schema.allOf as Schema[]).map((part) => combined(part)));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const first = Array.isArray(schema[key])
      ? (schema[key] as Schema[]).find((part) => resolved(part, root)?.type !== 'null')
      : undefined;
    if (first) return combined(first);
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectSample(schema, depth, next, options);
    case 'array': {
      const count = depth >= MAX_DEPTH ? Number(schema.minItems ?? 0) : Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: Math.min(count, 3) }, () => next(schema.items as Schema | undefined, 1));
    }
    case 'string':
      return stringSample(schema, name);
    case 'integer':
      return numberSample(schema, true);
    case 'number':
      return numberSample(schema, false);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** The schema's type: its `type` (the first not `null` of a list), or what its keywords imply. */
function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((entry) => entry !== 'null') ?? 'null') as string;
  if (schema.properties || schema.additionalProperties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

type Next = (part: Schema | undefined, deeper?: number, name?: string) => unknown;

function objectSample(schema: Schema, depth: number, next: Next, options: SampleOptions): Record<string, unknown> {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const value: Record<string, unknown> = {};
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    // An answer never carries what only a request may.
    if (property?.writeOnly === true && !options.requiredOnly) continue;
    if (!required.has(name) && (options.requiredOnly || depth >= MAX_DEPTH)) continue;
    if (NEXT_PAGE.test(name)) {
      if (!required.has(name)) continue;
      if (property?.nullable === true || (Array.isArray(property?.type) && property.type.includes('null'))) {
        value[name] = null;
        continue;
      }
      if (typeOf(property ?? {}) === 'boolean') {
        value[name] = false;
        continue;
      }
    }
    value[name] = next(property, 1, name);
  }
  return value;
}

function stringSample(schema: Schema, name: string | undefined): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  const named = name ? `example-${name.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}` : 'example';
  let text = format ?? named;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  if (text.length < min) text = text.padEnd(min, 'x');
  if (text.length > max) text = text.slice(0, max);
  if (typeof schema.pattern === 'string' && !accepts(schema.pattern, text)) {
    const built = patternSample(schema.pattern);
    if (built !== undefined && accepts(schema.pattern, built)) return built;
  }
  return text;
}

/** Patterns longer than this are not read: an author's own schemas have short ones. */
const MAX_PATTERN = 200;
/** A count above this (`{1000}`) is not built. */
const MAX_REPEAT = 64;

function accepts(pattern: string, text: string): boolean {
  if (pattern.length > MAX_PATTERN) return true;
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true;
  }
}

/** The first character a class or escape stands for: `\d` 1, `\w` a, `[A-Z]` A. */
function firstOf(part: string): string | undefined {
  if (part.startsWith('\\'))
    return { d: '1', w: 'a', s: ' ' }[part[1] ?? ''] ?? (/[A-Za-z0-9]/.test(part[1] ?? '') ? undefined : part[1]);
  return part[0];
}

/**
 * A string a simple pattern accepts (`^[A-Z]{3}$` AAA, `^\d+\.\d{2}$` 1.11): literals, escapes
 * and classes, each with a count; undefined for anything more (groups, alternatives).
 */
function patternSample(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return undefined;
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '');
  let text = '';
  let at = 0;
  while (at < body.length) {
    let part: string;
    if (body[at] === '\\') part = body.slice(at, at + 2);
    else if (body[at] === '[') {
      const end = body.indexOf(']', at);
      if (end < 0 || body[at + 1] === '^') return undefined;
      part = body.slice(at, end + 1);
    } else if ('()|.*+?{}^$'.includes(body[at]!)) return undefined;
    else part = body[at]!;
    at += part.length;
    const char = part.startsWith('[') ? firstOf(part.slice(1, -1)) : firstOf(part);
    if (char === undefined) return undefined;
    let count = 1;
    if (body[at] === '+' || body[at] === '*' || body[at] === '?') at += 1;
    else if (body[at] === '{') {
      const end = body.indexOf('}', at);
      const bounds = end < 0 ? null : /^(\d+)(,\d*)?$/.exec(body.slice(at + 1, end));
      if (!bounds || Number(bounds[1]) > MAX_REPEAT) return undefined;
      count = Number(bounds[1]);
      at = end + 1;
    }
    text += char.repeat(count);
  }
  return text;
}

/** A bound a person would set: zod writes the safe integer range for every integer, which is none. */
function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
}

/** 1, moved within the schema's bounds (open ones too) and onto its `multipleOf`. */
function numberSample(schema: Schema, integer: boolean): number {
  const minimum = bound(schema.minimum);
  const maximum = bound(schema.maximum);
  // Draft 4 writes an open bound as `exclusiveMinimum: true` beside `minimum`.
  const above = schema.exclusiveMinimum === true ? minimum : bound(schema.exclusiveMinimum);
  const below = schema.exclusiveMaximum === true ? maximum : bound(schema.exclusiveMaximum);
  const low = above ?? minimum;
  const high = below ?? maximum;
  let value = 1;
  if (low !== undefined && (value < low || (above !== undefined && value <= above)))
    value =
      above === undefined ? low : integer ? Math.floor(above) + 1 : high !== undefined ? (above + high) / 2 : above + 1;
  if (high !== undefined && (value > high || (below !== undefined && value >= below)))
    value =
      below === undefined ? high : integer ? Math.ceil(below) - 1 : low !== undefined ? (low + below) / 2 : below - 1;
  const step = bound(schema.multipleOf);
  if (step !== undefined && step > 0) value = Math.ceil(value / step) * step;
  return integer ? Math.ceil(value) : value;
}

function mergeAll(parts: unknown[]): unknown {
  if (parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part)))
    return Object.assign({}, ...parts);
  return parts.find((part) => part !== null) ?? null;
}
