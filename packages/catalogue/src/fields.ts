import { OPTIONS_KEYWORD } from './input-options.js';
import type { JsonObject } from './public-connector-schema.js';

/**
 * Reading the fields of a published JSON Schema: the rows of the site's field
 * tables, and the field paths the diff compares. Refs are resolved inside the
 * same document (`#` and `#/$defs/<name>`), with a guard against cycles.
 */

export interface FieldRow {
  /** Dotted path; `[]` marks the items of an array (`tags[]`, `lines[].amount`). */
  field: string;
  type: string;
  required: boolean;
  description: string | null;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function resolve(document: JsonObject, schema: JsonObject): { schema: JsonObject; name: string | undefined } {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return { schema, name: undefined };
  if (ref === '#') return { schema: document, name: typeof document.title === 'string' ? document.title : '#' };
  const match = /^#\/\$defs\/(.+)$/.exec(ref);
  const name = match ? decodeURIComponent(match[1] as string) : undefined;
  const defs = isObject(document.$defs) ? document.$defs : {};
  const target = name !== undefined && isObject(defs[name]) ? defs[name] : {};
  return { schema: target, name };
}

/** Non-null branches of a nullable union, and whether null was one of them. */
function branches(schema: JsonObject): { options: JsonObject[]; nullable: boolean } {
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (!union) return { options: [schema], nullable: false };
  const options = union.filter(isObject);
  const nonNull = options.filter((option) => option.type !== 'null');
  return { options: nonNull, nullable: nonNull.length !== options.length };
}

/** A short type label: `string (date-time)`, `"a" | "b"`, `Money[]`, `Record<string, number>`, `X | null`. */
export function typeLabel(document: JsonObject, schema: JsonObject, depth = 0): string {
  if (depth > 6) return 'unknown';
  const { schema: target, name } = resolve(document, schema);
  if (name !== undefined) return name;
  const { options, nullable } = branches(target);
  if (options.length !== 1 || options[0] !== target) {
    const labels = [...new Set(options.map((option) => typeLabel(document, option, depth + 1)))];
    if (nullable) labels.push('null');
    return labels.join(' | ') || 'unknown';
  }
  if (Array.isArray(target.allOf)) {
    const labels = [...new Set(target.allOf.filter(isObject).map((part) => typeLabel(document, part, depth + 1)))];
    return labels.join(' & ') || 'object';
  }
  if (Array.isArray(target.enum)) return target.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (target.const !== undefined) return JSON.stringify(target.const);
  const type = target.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') {
    const items = isObject(target.items) ? typeLabel(document, target.items, depth + 1) : 'unknown';
    return items.includes(' ') ? `(${items})[]` : `${items}[]`;
  }
  if (type === 'object' || isObject(target.properties)) {
    if (!isObject(target.properties) && isObject(target.additionalProperties)) {
      return `Record<string, ${typeLabel(document, target.additionalProperties, depth + 1)}>`;
    }
    return 'object';
  }
  if (typeof type === 'string') return typeof target.format === 'string' ? `${type} (${target.format})` : type;
  return 'unknown';
}

/** Properties and required names of an object view of a schema. */
interface ObjectView {
  properties: Record<string, JsonObject>;
  required: Set<string>;
}

function ownView(schema: JsonObject): ObjectView | undefined {
  if (!isObject(schema.properties)) return undefined;
  const properties: Record<string, JsonObject> = {};
  for (const [key, value] of Object.entries(schema.properties)) if (isObject(value)) properties[key] = value;
  return {
    properties,
    required: new Set(
      Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [],
    ),
  };
}

/**
 * The object schema behind a field, if any: itself, its non-null branch, its
 * array items (repeatedly, marked `[]`), the parts of an `allOf` merged, or the
 * object branches of a union merged (a field is required when every branch
 * requires it).
 */
function objectBehind(
  document: JsonObject,
  schema: JsonObject,
  suffix = '',
  depth = 0,
): { schema: ObjectView; suffix: string; name: string | undefined } | undefined {
  if (depth > 8) return undefined;
  const { schema: target, name } = resolve(document, schema);
  const { options } = branches(target);
  if (options.length === 1 && options[0] !== target) {
    const inner = objectBehind(document, options[0] as JsonObject, suffix, depth + 1);
    return inner && { ...inner, name: name ?? inner.name };
  }
  if (options.length > 1) {
    const views = options.map((option) => objectBehind(document, option, '', depth + 1));
    if (views.some((view) => view === undefined || view.suffix !== '')) return undefined;
    const merged: ObjectView = { properties: {}, required: new Set(views[0]?.schema.required) };
    for (const view of views as Array<{ schema: ObjectView }>) {
      for (const [key, value] of Object.entries(view.schema.properties)) merged.properties[key] ??= value;
      for (const key of merged.required) if (!view.schema.required.has(key)) merged.required.delete(key);
    }
    return { schema: merged, suffix, name };
  }
  if (Array.isArray(target.allOf)) {
    const merged: ObjectView = ownView(target) ?? { properties: {}, required: new Set() };
    for (const part of target.allOf.filter(isObject)) {
      const view = objectBehind(document, part, '', depth + 1);
      if (view?.suffix !== '') continue;
      Object.assign(merged.properties, view.schema.properties);
      for (const key of view.schema.required) merged.required.add(key);
    }
    return Object.keys(merged.properties).length > 0 ? { schema: merged, suffix, name } : undefined;
  }
  const own = ownView(target);
  if (own) return { schema: own, suffix, name };
  if (target.type === 'array' && isObject(target.items))
    return objectBehind(document, target.items, `${suffix}[]`, depth + 1);
  return undefined;
}

function ownDescription(schema: JsonObject, document: JsonObject): string | null {
  if (typeof schema.description === 'string') return schema.description;
  const { schema: target } = resolve(document, schema);
  return typeof target.description === 'string' && schema.$ref === undefined ? target.description : null;
}

/** The field's description, and where its options come from when it lists them. */
function description(schema: JsonObject, document: JsonObject): string | null {
  const text = ownDescription(schema, document);
  const from = (schema[OPTIONS_KEYWORD] as { from?: unknown } | undefined)?.from;
  if (typeof from !== 'string') return text;
  return text === null ? `Options: ${from}` : `${text} (options: ${from})`;
}

/**
 * Rows of one object schema: its fields, and the fields of inline objects
 * inside it (dotted). A field of a named type shows the type's name; that type
 * has a table of its own (`follow: true` walks into named types too).
 */
export function fieldRows(
  document: JsonObject,
  schema: JsonObject = document,
  options: { follow?: boolean; prefix?: string } = {},
): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (object: ObjectView, prefix: string, stack: readonly string[]) => {
    if (stack.length > 8) return;
    for (const [key, value] of Object.entries(object.properties)) {
      const field = `${prefix}${key}`;
      rows.push({
        field,
        type: typeLabel(document, value),
        required: object.required.has(key),
        description: description(value, document),
      });
      const inner = objectBehind(document, value);
      if (!inner) continue;
      if (inner.name !== undefined && (!options.follow || stack.includes(inner.name))) continue;
      walk(inner.schema, `${field}${inner.suffix}.`, inner.name === undefined ? stack : [...stack, inner.name]);
    }
  };
  const root = objectBehind(document, schema);
  if (root)
    walk(
      root.schema,
      options.prefix ?? '',
      root.name !== undefined
        ? [root.name]
        : schema === document && typeof document.title === 'string'
          ? [document.title]
          : [],
    );
  return rows;
}

/** Every field path of a schema, walking into named types (for the diff). */
export function fieldPaths(document: JsonObject): Map<string, FieldRow> {
  return new Map(fieldRows(document, document, { follow: true }).map((row) => [row.field, row]));
}
