/**
 * OpenAPI 3.0 schema objects to JSON Schema that Ajv understands: `$ref`s into the document
 * are inlined, `nullable` becomes a null type, and annotation-only keywords are dropped
 * (`discriminator` among them: its mapping may name schemas the document never defines).
 */

type Json = Record<string, unknown>;

const ANNOTATIONS = new Set([
  'example',
  'examples',
  'discriminator',
  'xml',
  'externalDocs',
  'deprecated',
  'readOnly',
  'writeOnly',
  'nullable',
]);
/** Keywords whose value is a map of names to schemas, where the names are data, not keywords. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties']);

export class SchemaConverter {
  private readonly converted = new Map<string, unknown>();

  constructor(private readonly document: Json) {}

  /** Follows a `$ref` (any object kind: parameter, response, request body) to its target. */
  deref(node: unknown): unknown {
    let current = node;
    for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      if (hops > 20) throw new Error(`$ref chain too long at ${current['$ref']}`);
      current = this.pointer(current['$ref']);
    }
    return current;
  }

  toJsonSchema(schema: unknown): unknown {
    return this.convert(schema, []);
  }

  private convert(node: unknown, resolving: readonly string[]): unknown {
    if (Array.isArray(node)) return node.map((item) => this.convert(item, resolving));
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    if (typeof ref === 'string') {
      const cached = this.converted.get(ref);
      if (cached !== undefined) return cached;
      if (resolving.includes(ref)) throw new Error(`recursive schema ${ref} is not supported`);
      const result = this.convert(this.pointer(ref), [...resolving, ref]);
      this.converted.set(ref, result);
      return result;
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
      if (SCHEMA_MAPS.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, schema]) => [name, this.convert(schema, resolving)]),
        );
      } else {
        out[key] = this.convert(value, resolving);
      }
    }
    return node['nullable'] === true ? allowNull(out) : out;
  }

  private pointer(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
    let current: unknown = this.document;
    for (const raw of ref.slice(2).split('/')) {
      const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(current) || !(segment in current)) throw new Error(`unresolvable $ref ${ref}`);
      current = current[segment];
    }
    return current;
  }
}

function allowNull(schema: Json): Json {
  const type = schema['type'];
  if (typeof type === 'string') {
    const out: Json = { ...schema, type: [type, 'null'] };
    if (Array.isArray(schema['enum'])) out['enum'] = [...schema['enum'], null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
