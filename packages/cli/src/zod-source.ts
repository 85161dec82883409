import type { Schema } from './openapi-document.js';

/**
 * TypeScript source of a zod schema for a JSON Schema as OpenAPI 3.0 or 3.1 writes it (with
 * `$ref`s already replaced, so a recursive schema is a cycle of objects). Every text taken from
 * the document goes into the source as a JSON string literal, never as code. What zod cannot
 * say simply (a recursion, `not`, conditional schemas) becomes `z.unknown()` with a comment
 * for the author.
 */

export interface ZodSourceOptions {
  /** Objects that answers may extend: `z.looseObject`; inputs: `z.object`. */
  loose: boolean;
}

const MAX_DEPTH = 12;

export function zodSource(schema: Schema | undefined, options: ZodSourceOptions): string {
  return source(schema, options, [], 0);
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

/** A property name as an object key: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : literal(name);
}

function withDescription(code: string, schema: Schema): string {
  return typeof schema.description === 'string' && schema.description.trim() !== ''
    ? `${code}.describe(${literal(schema.description.trim().slice(0, 500))})`
    : code;
}

function nullable(schema: Schema): boolean {
  return schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes('null'));
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    return types.length === 1 ? (types[0] as string) : undefined;
  }
  if (schema.properties || schema.additionalProperties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function source(schema: Schema | undefined, options: ZodSourceOptions, stack: Schema[], depth: number): string {
  if (!schema || typeof schema !== 'object') return 'z.unknown()';
  if (stack.includes(schema) || depth > MAX_DEPTH)
    return 'z.unknown() /* recursive in the document: narrow it by hand */';
  const inner = [...stack, schema];
  const next = (part: Schema | undefined) => source(part, options, inner, depth + 1);
  let code: string;
  if (schema.const !== undefined) code = `z.literal(${literal(schema.const)})`;
  else if (
    Array.isArray(schema.enum) &&
    schema.enum.length > 0 &&
    schema.enum.every((value) => typeof value === 'string')
  )
    code = `z.enum(${literal(schema.enum)})`;
  else if (Array.isArray(schema.enum) && schema.enum.length > 0)
    code = `z.union([${schema.enum.map((value) => `z.literal(${literal(value)})`).join(', ')}])`;
  else if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    code = (schema.allOf as Schema[]).map(next).reduce((left, right) => `z.intersection(${left}, ${right})`);
  } else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const parts = ((schema.oneOf ?? schema.anyOf) as Schema[]).filter((part) => part?.type !== 'null');
    code = parts.length === 1 ? next(parts[0]) : `z.union([${parts.map(next).join(', ')}])`;
  } else {
    switch (typeOf(schema)) {
      case 'string':
        code = `z.string()${typeof schema.minLength === 'number' ? `.min(${schema.minLength})` : ''}${typeof schema.maxLength === 'number' ? `.max(${schema.maxLength})` : ''}`;
        break;
      case 'integer':
        code = `z.number().int()${typeof schema.minimum === 'number' ? `.min(${schema.minimum})` : ''}${typeof schema.maximum === 'number' ? `.max(${schema.maximum})` : ''}`;
        break;
      case 'number':
        code = `z.number()${typeof schema.minimum === 'number' ? `.min(${schema.minimum})` : ''}${typeof schema.maximum === 'number' ? `.max(${schema.maximum})` : ''}`;
        break;
      case 'boolean':
        code = 'z.boolean()';
        break;
      case 'array':
        code = `z.array(${next(schema.items as Schema | undefined)})`;
        break;
      case 'object':
        code = objectSource(schema, options, next);
        break;
      default:
        code = 'z.unknown()';
    }
  }
  if (nullable(schema) && !code.endsWith('.nullable()')) code = `${code}.nullable()`;
  return withDescription(code, schema);
}

function objectSource(schema: Schema, options: ZodSourceOptions, next: (part: Schema | undefined) => string): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  if (properties.length === 0) {
    const values = schema.additionalProperties;
    return values && typeof values === 'object'
      ? `z.record(z.string(), ${next(values as Schema)})`
      : options.loose
        ? 'z.looseObject({})'
        : 'z.record(z.string(), z.unknown())';
  }
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = properties.map(([name, property]) => {
    // An answer never carries what only a request may send, and a request never sends what only an answer may.
    const skip = options.loose ? property?.writeOnly === true : property?.readOnly === true;
    if (skip) return undefined;
    return `${propertyKey(name)}: ${next(property)}${required.has(name) ? '' : '.optional()'}`;
  });
  const body = fields.filter((field) => field !== undefined).join(', ');
  return `${options.loose ? 'z.looseObject' : 'z.object'}({ ${body} })`;
}
