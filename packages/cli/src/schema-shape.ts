import type { Schema } from './openapi-document.js';

/**
 * What a JSON schema of an OpenAPI document says of a value's shape, read the same way by the
 * paging detection (list-paging.ts), the scaffold and the stand-in's records.
 */

/** How deep combinations (`allOf` in `allOf` ...) are followed. */
const MAX_DEPTH = 3;

/** The schema's type, `null` aside; an object or an array also by its keywords when it names none. */
export function typeOf(schema: Schema | undefined): string | undefined {
  if (!schema) return undefined;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null') as string | undefined;
  if (schema.properties || schema.additionalProperties || schema.allOf || schema.oneOf || schema.anyOf) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

export const isNumber = (schema: Schema | undefined) => ['integer', 'number'].includes(typeOf(schema) ?? '');

export const nullable = (schema: Schema) =>
  schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes('null'));

/**
 * An object schema's properties, and those it requires: an `allOf`'s parts merged, and of a
 * `oneOf` or `anyOf` only what every variant has (a value of any variant has it).
 */
export function propertiesOf(
  schema: Schema | undefined,
  depth = 0,
): { properties: Record<string, Schema>; required: Set<string> } {
  const none = { properties: {}, required: new Set<string>() };
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return none;
  const properties: Record<string, Schema> = { ...((schema.properties ?? {}) as Record<string, Schema>) };
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const part of Array.isArray(schema.allOf) ? (schema.allOf as Schema[]) : []) {
    const merged = propertiesOf(part, depth + 1);
    Object.assign(properties, merged.properties);
    for (const name of merged.required) required.add(name);
  }
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) {
    const each = variants.filter((variant) => typeOf(variant) !== 'null').map((part) => propertiesOf(part, depth + 1));
    for (const [name, property] of Object.entries(each[0]?.properties ?? {})) {
      if (each.every((variant) => name in variant.properties)) properties[name] ??= property;
      if (each.every((variant) => variant.required.has(name))) required.add(name);
    }
  }
  return { properties, required };
}
