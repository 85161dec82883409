import type { MediaType, Schema } from '../openapi-document.js';

/**
 * A value that matches a schema, the same on every call: the schema's own example, default,
 * const or first enum value where it has one, else built from its type. Every optional
 * property is filled, arrays have one item (or their `minItems`), and a recursive schema stops
 * after a few levels (deeper, optional properties and items are left out).
 */

const MAX_DEPTH = 6;

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

/** The example of a media type: `example`, else the first of `examples`, else a sample of its schema. */
export function exampleOf(media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first?.value !== undefined) return first.value;
  return sampleOf(media.schema);
}

export function sampleOf(schema: Schema | undefined, depth = 0): unknown {
  if (schema === undefined || typeof schema !== 'object' || schema === null) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  // A schema that requires itself has no finite value: give up far below the stack's limit.
  if (depth > 4 * MAX_DEPTH) return null;
  if (Array.isArray(schema.allOf)) return mergeAll((schema.allOf as Schema[]).map((part) => sampleOf(part, depth)));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const first = Array.isArray(schema[key]) ? (schema[key] as Schema[])[0] : undefined;
    if (first) return sampleOf(first, depth);
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectSample(schema, depth);
    case 'array': {
      const count = depth >= MAX_DEPTH ? Number(schema.minItems ?? 0) : Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: Math.min(count, 3) }, () => sampleOf(schema.items as Schema | undefined, depth + 1));
    }
    case 'string':
      return stringSample(schema);
    case 'integer':
      return numberSample(schema, true);
    case 'number':
      return numberSample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
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

function objectSample(schema: Schema, depth: number): Record<string, unknown> {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const sample: Record<string, unknown> = {};
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    // An answer never carries what only a request may.
    if (property?.writeOnly === true) continue;
    if (NEXT_PAGE.test(name)) {
      if (!required.has(name)) continue;
      if (property?.nullable === true || (Array.isArray(property?.type) && property.type.includes('null'))) {
        sample[name] = null;
        continue;
      }
      if (typeOf(property ?? {}) === 'boolean') {
        sample[name] = false;
        continue;
      }
    }
    // Deep in a recursive schema, only what must be there.
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    sample[name] = sampleOf(property, depth + 1);
  }
  return sample;
}

function stringSample(schema: Schema): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  let text = format ?? 'string';
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  if (text.length < min) text = text.padEnd(min, 'x');
  if (text.length > max) text = text.slice(0, max);
  return text;
}

function numberSample(schema: Schema, integer: boolean): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const exclusive = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : schema.exclusiveMinimum === true ? minimum : undefined;
  let value = exclusive !== undefined ? exclusive + 1 : (minimum ?? (typeof schema.maximum === 'number' ? Math.min(0, schema.maximum) : 0));
  if (integer) value = Math.ceil(value);
  return value;
}

function mergeAll(parts: unknown[]): unknown {
  if (parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part))) return Object.assign({}, ...parts);
  return parts.find((part) => part !== null) ?? null;
}
