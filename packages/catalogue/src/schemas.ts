import { byKey } from '@plugboard/sdk';
import { mapJson } from '@plugboard/sdk/host';
import { z } from 'zod';
import type { JsonObject } from './public-connector-schema.js';
import { sortedRecord } from './write.js';

/**
 * zod -> JSON Schema (draft 2020-12) with `z.toJSONSchema`. A named data type
 * (`.meta({ id })`) comes out of zod as `{ $ref: '#/$defs/Id', $defs }`; the file
 * of a data type puts the type itself at the root (titled with its id) and keeps
 * the named types it uses under `$defs`, so each file stands alone.
 *
 * Data types are converted as `output` (the records a run yields, after
 * parsing); inputs as `input` (what a caller may send: a field with a default
 * is optional there).
 */

export type Io = 'input' | 'output';

/** A schema split into its root and its named definitions, refs in `#/$defs/<id>` form. */
export interface SchemaParts {
  /** The id of the root when it is a named type. */
  rootId: string | undefined;
  root: JsonObject;
  defs: Record<string, JsonObject>;
}

const DEFS_PREFIX = '#/$defs/';

export function schemaParts(schema: z.ZodType, io: Io): SchemaParts {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
    target: 'draft-2020-12',
  }) as JsonObject;
  const { $schema: _dialect, $defs, ...rest } = json;
  const defs = { ...($defs as Record<string, JsonObject> | undefined) };
  const ref = typeof rest.$ref === 'string' && Object.keys(rest).length === 1 ? rest.$ref : undefined;
  if (ref?.startsWith(DEFS_PREFIX)) {
    const rootId = decodeURIComponent(ref.slice(DEFS_PREFIX.length));
    const root = defs[rootId];
    if (root) {
      delete defs[rootId];
      return { rootId, root, defs };
    }
  }
  return { rootId: undefined, root: rest, defs };
}

/** Deep copy of a schema with every `$ref` passed through `rewrite`. */
export function mapRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  return mapJson(value, {
    member: (key, inner) => (key === '$ref' && typeof inner === 'string' ? rewrite(inner) : undefined),
  });
}

/** The stand-alone JSON Schema file of a data type or an input. */
export function schemaFile(parts: SchemaParts, title: string): JsonObject {
  const selfRef = parts.rootId === undefined ? undefined : `${DEFS_PREFIX}${encodeURIComponent(parts.rootId)}`;
  const toSelf = (ref: string) => (ref === selfRef ? '#' : ref);
  const root = mapRefs(parts.root, toSelf) as JsonObject;
  const defs = sortedRecord(mapRefs(parts.defs, toSelf) as Record<string, JsonObject>);
  const { title: ownTitle, description, ...body } = root;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: typeof ownTitle === 'string' ? ownTitle : title,
    ...(description === undefined ? {} : { description }),
    ...body,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}

/** Named types of one connector, merged: the same id with another shape (an input form) gets a suffix. */
export class DefinitionSet {
  readonly defs = new Map<string, JsonObject>();
  private readonly texts = new Map<string, string>();

  /**
   * Adds a schema's root (under `name`) and its named types; returns the name
   * the root got. Refs inside are rewritten to the names actually used.
   */
  add(parts: SchemaParts, name: string, suffix: string): string {
    const renames = new Map<string, string>();
    const pending = new Map<string, JsonObject>(Object.entries(parts.defs));
    if (parts.rootId !== undefined) pending.set(parts.rootId, parts.root);
    // Decide each name first, then rewrite refs with the full table.
    for (const [id, def] of [...pending].sort(byKey)) {
      renames.set(id, this.freeName(id, JSON.stringify(def), suffix));
    }
    const rootName =
      parts.rootId === undefined
        ? this.freeName(name, JSON.stringify(parts.root), '')
        : (renames.get(parts.rootId) as string);
    const rewrite = (ref: string) => {
      if (!ref.startsWith(DEFS_PREFIX)) return ref;
      const id = decodeURIComponent(ref.slice(DEFS_PREFIX.length));
      return `${DEFS_PREFIX}${encodeURIComponent(renames.get(id) ?? id)}`;
    };
    for (const [id, def] of pending) this.put(renames.get(id) as string, mapRefs(def, rewrite) as JsonObject);
    if (parts.rootId === undefined) this.put(rootName, mapRefs(parts.root, rewrite) as JsonObject);
    return rootName;
  }

  private freeName(id: string, text: string, suffix: string): string {
    const existing = this.texts.get(id);
    if (existing === undefined || existing === text) {
      this.texts.set(id, text);
      return id;
    }
    for (let n = 1; ; n += 1) {
      const candidate = `${id}${suffix}${n === 1 ? '' : n}`;
      const other = this.texts.get(candidate);
      if (other === undefined || other === text) {
        this.texts.set(candidate, text);
        return candidate;
      }
    }
  }

  private put(name: string, def: JsonObject): void {
    if (!this.defs.has(name)) this.defs.set(name, def);
  }
}
