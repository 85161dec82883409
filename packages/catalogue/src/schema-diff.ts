import { compareText } from '@plugboard/sdk/host';
import type { JsonObject } from './public-connector-schema.js';

/**
 * Compares two published JSON Schemas (a data type or an input) by walking both
 * by path, resolving `$ref`s inside each file (`#` and `#/$defs/<name>`).
 *
 * The verdict follows the platform's versioning rules from the side of whoever
 * depends on the schema:
 * - an OUTPUT (a data type: the records a run yields) is read by consumers, so
 *   it breaks when it may now carry something a consumer did not expect (a new
 *   type or enum value, a looser limit or format) or lacks something it had
 *   (a field removed or made optional, an enum value a consumer acts on, the
 *   fields beyond the listed ones once the object is closed); a tighter limit
 *   on an output breaks nobody;
 * - an INPUT is written by callers, so it breaks when something a caller sends
 *   today may be refused (a type or enum value dropped, a tighter limit,
 *   format or pattern, a new required field, a closed object, a field
 *   removed); widening an input breaks nobody.
 */

export type SchemaIo = 'input' | 'output';

export interface SchemaChange {
  kind: SchemaChangeKind;
  breaking: boolean;
  /** Dotted path; `[]` marks the items of an array. Empty for the root. */
  field: string;
  from?: string;
  to?: string;
}

/** Each kind with its rule and verdict for an output and for an input. */
export const SCHEMA_RULES = {
  'field-removed': {
    output: true,
    input: true,
    rule: 'consumers read the field / callers that send it may be refused',
  },
  'field-added': { output: false, input: false, rule: 'an output field added: consumers ignore what they do not know' },
  'required-input-added': {
    output: true,
    input: true,
    rule: 'callers that do not send the new required field are refused',
  },
  'optional-input-added': { output: false, input: false, rule: 'callers may leave an optional field out' },
  'field-made-optional': { output: true, input: false, rule: 'consumers relying on an output field may now miss it' },
  'type-changed': {
    output: true,
    input: true,
    rule: 'neither type covers the other (string -> number): breaks both sides',
  },
  'type-narrowed': {
    output: false,
    input: true,
    rule: 'a type or union member dropped: callers sending it are refused; consumers see fewer shapes',
  },
  'type-widened': {
    output: true,
    input: false,
    rule: 'a type or union member (or null) added: consumers meet a shape they do not handle',
  },
  'enum-value-added': {
    output: true,
    input: false,
    rule: 'an output may carry a value consumers do not know; an input accepts one more',
  },
  'enum-value-removed': {
    output: true,
    input: true,
    rule: 'an input refuses a value callers send; consumers that act on an output value never see it again',
  },
  'object-closed': {
    output: true,
    input: true,
    rule: 'additionalProperties closed: callers sending extra fields are refused, and consumers lose the fields the provider sent beyond the listed ones',
  },
  'format-changed': {
    output: true,
    input: true,
    rule: 'a format set or changed on an input, or dropped or changed on an output',
  },
  'pattern-changed': {
    output: true,
    input: true,
    rule: 'a pattern set or changed on an input, or dropped or changed on an output',
  },
  'limit-tightened': {
    output: false,
    input: true,
    rule: 'a min raised or a max lowered: inputs in range today may be refused',
  },
  'limit-loosened': {
    output: true,
    input: false,
    rule: 'a min lowered or a max raised (or dropped): outputs may leave the range consumers expect',
  },
} as const satisfies Record<string, { output: boolean; input: boolean; rule: string }>;

export type SchemaChangeKind = keyof typeof SCHEMA_RULES;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function resolveRef(document: JsonObject, schema: JsonObject, depth = 0): JsonObject {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || depth > 16) return schema;
  if (ref === '#') return document;
  const match = /^#\/\$defs\/(.+)$/.exec(ref);
  const defs = isObject(document.$defs) ? document.$defs : {};
  const target = match ? defs[decodeURIComponent(match[1] as string)] : undefined;
  return isObject(target) ? resolveRef(document, target, depth + 1) : {};
}

function unionOf(schema: JsonObject): JsonObject[] | undefined {
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  return union?.filter(isObject);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The JSON types a schema admits; `any` when it says nothing about them. */
function typesOf(document: JsonObject, raw: JsonObject, depth = 0): Set<string> {
  const schema = resolveRef(document, raw);
  const union = unionOf(schema);
  if (union && depth < 8) return new Set(union.flatMap((branch) => [...typesOf(document, branch, depth + 1)]));
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map(jsonType));
  if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
  if (isObject(schema.properties)) return new Set(['object']);
  return new Set(['any']);
}

function admits(types: Set<string>, type: string): boolean {
  return types.has('any') || types.has(type) || (type === 'integer' && types.has('number'));
}

/** Enum values (as JSON text) a schema is restricted to, or undefined when it is not an enumeration. */
function enumOf(document: JsonObject, raw: JsonObject, depth = 0): Set<string> | undefined {
  const schema = resolveRef(document, raw);
  const union = unionOf(schema);
  if (union && depth < 8) {
    const values = new Set<string>();
    for (const branch of union) {
      const target = resolveRef(document, branch);
      if (target.type === 'null') continue;
      const inner = enumOf(document, branch, depth + 1);
      if (!inner) return undefined;
      for (const value of inner) values.add(value);
    }
    return values.size > 0 ? values : undefined;
  }
  if (Array.isArray(schema.enum))
    return new Set(schema.enum.filter((value) => value !== null).map((value) => JSON.stringify(value)));
  if (schema.const !== undefined && schema.const !== null) return new Set([JSON.stringify(schema.const)]);
  return undefined;
}

/** The one non-null branch of a nullable union, else the schema itself (resolved). */
function core(document: JsonObject, raw: JsonObject): JsonObject {
  const schema = resolveRef(document, raw);
  const union = unionOf(schema);
  if (!union) return schema;
  const nonNull = union.filter((branch) => resolveRef(document, branch).type !== 'null');
  return nonNull.length === 1 ? core(document, nonNull[0] as JsonObject) : schema;
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function label(types: Set<string>): string {
  return [...types].sort(compareText).join(' | ');
}

/** Every change between two schema files, as seen by consumers (`output`) or callers (`input`). */
export function compareSchemas(beforeDoc: JsonObject, afterDoc: JsonObject, io: SchemaIo): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const seen = new Set<string>();
  const add = (kind: SchemaChangeKind, field: string, from?: string, to?: string) =>
    changes.push({
      kind,
      breaking: SCHEMA_RULES[kind][io],
      field,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    });

  const walk = (rawBefore: JsonObject, rawAfter: JsonObject, path: string, depth: number): void => {
    if (depth > 32) return;
    const key = `${path}\u0000${JSON.stringify(rawBefore.$ref ?? null)}\u0000${JSON.stringify(rawAfter.$ref ?? null)}`;
    if (seen.has(key)) return;
    seen.add(key);

    // Types: every type of one side admitted by the other?
    const was = typesOf(beforeDoc, rawBefore);
    const now = typesOf(afterDoc, rawAfter);
    const lost = [...was].some((type) => !admits(now, type));
    const gained = [...now].some((type) => !admits(was, type));
    if (lost && gained) add('type-changed', path, label(was), label(now));
    else if (lost) add('type-narrowed', path, label(was), label(now));
    else if (gained) add('type-widened', path, label(was), label(now));
    if (lost && gained) return; // a different type: its inner rules no longer compare

    // Enumerations.
    const wasEnum = enumOf(beforeDoc, rawBefore);
    const nowEnum = enumOf(afterDoc, rawAfter);
    if (wasEnum && nowEnum) {
      for (const value of [...nowEnum].filter((item) => !wasEnum.has(item)).sort(compareText))
        add('enum-value-added', path, undefined, value);
      for (const value of [...wasEnum].filter((item) => !nowEnum.has(item)).sort(compareText))
        add('enum-value-removed', path, value, undefined);
    } else if (wasEnum && !nowEnum && io === 'output' && !gained)
      add('enum-value-added', path, [...wasEnum].join(' | '), 'any value');
    else if (!wasEnum && nowEnum && io === 'input' && !lost)
      add('enum-value-removed', path, 'any value', [...nowEnum].join(' | '));

    const before = core(beforeDoc, rawBefore);
    const after = core(afterDoc, rawAfter);

    // Format and pattern: a constraint an input gained, or an output lost, or one that changed.
    // A pattern that moved with its format (zod writes both for `z.iso.datetime()`) is one change.
    let formatMoved = false;
    for (const [keyword, kind] of [
      ['format', 'format-changed'],
      ['pattern', 'pattern-changed'],
    ] as const) {
      const from = before[keyword];
      const to = after[keyword];
      if (from === to || (keyword === 'pattern' && formatMoved)) continue;
      if (from !== undefined && to !== undefined) add(kind, path, String(from), String(to));
      else if (to !== undefined && io === 'input') add(kind, path, 'none', String(to));
      else if (from !== undefined && io === 'output') add(kind, path, String(from), 'none');
      if (keyword === 'format') formatMoved = before.format !== after.format;
    }

    // Limits: a lower bound raised or an upper bound lowered tightens; the opposite loosens.
    for (const keyword of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
      const from = typeof before[keyword] === 'number' ? (before[keyword] as number) : undefined;
      const to = typeof after[keyword] === 'number' ? (after[keyword] as number) : undefined;
      if (from === to) continue;
      const lower = (LOWER_BOUNDS as readonly string[]).includes(keyword);
      const tighter = from === undefined ? true : to === undefined ? false : lower ? to > from : to < from;
      add(
        tighter ? 'limit-tightened' : 'limit-loosened',
        path,
        `${keyword} ${from ?? 'none'}`,
        `${keyword} ${to ?? 'none'}`,
      );
    }

    // Objects.
    const wasProps = isObject(before.properties) ? before.properties : undefined;
    const nowProps = isObject(after.properties) ? after.properties : undefined;
    if (wasProps || nowProps) {
      const oldProps = wasProps ?? {};
      const newProps = nowProps ?? {};
      const wasRequired = new Set(Array.isArray(before.required) ? before.required.map(String) : []);
      const nowRequired = new Set(Array.isArray(after.required) ? after.required.map(String) : []);
      for (const name of Object.keys(oldProps).sort(compareText)) {
        const field = join(path, name);
        if (!Object.hasOwn(newProps, name)) {
          add('field-removed', field);
          continue;
        }
        if (io === 'output' && wasRequired.has(name) && !nowRequired.has(name)) add('field-made-optional', field);
        if (io === 'input' && !wasRequired.has(name) && nowRequired.has(name)) add('required-input-added', field);
        walk(oldProps[name] as JsonObject, newProps[name] as JsonObject, field, depth + 1);
      }
      for (const name of Object.keys(newProps).sort(compareText)) {
        if (Object.hasOwn(oldProps, name)) continue;
        const field = join(path, name);
        if (io === 'output') add('field-added', field);
        else add(nowRequired.has(name) ? 'required-input-added' : 'optional-input-added', field);
      }
      if (before.additionalProperties !== false && after.additionalProperties === false) add('object-closed', path);
      if (isObject(before.additionalProperties) && isObject(after.additionalProperties)) {
        walk(before.additionalProperties, after.additionalProperties, join(path, '*'), depth + 1);
      }
    }

    // Arrays.
    if (isObject(before.items) && isObject(after.items)) walk(before.items, after.items, `${path}[]`, depth + 1);
  };

  walk(beforeDoc, afterDoc, '', 0);
  return changes;
}
