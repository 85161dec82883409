import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { UsageError } from './usage.js';

/**
 * An OpenAPI 3.x document read from a file (JSON or YAML), checked against the OpenAPI
 * schema of its version and with every `$ref` replaced by what it points to (a recursive
 * schema becomes a cycle of objects: walk it with a depth bound).
 */

export interface OpenApiDocument {
  /** `3.0.x` or `3.1.x`, as the document says. */
  openapi: string;
  servers?: Array<{ url: string }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, PathItem>;
  components?: { securitySchemes?: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
  /** The document as written, `$ref`s and all: what a validator compiles a recursive schema from. */
  source: Record<string, unknown>;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
export type Method = (typeof METHODS)[number];

export type PathItem = { parameters?: Parameter[] } & Partial<Record<Method, Operation>>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }
  >;
  security?: Array<Record<string, string[]>>;
}

export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

/** A JSON Schema object as OpenAPI writes it (3.0's dialect or 3.1's). */
export type Schema = { [keyword: string]: unknown };

/** The refusal of a document, naming the file and what is wrong with it. */
export class OpenApiDocumentError extends UsageError {}

export async function loadOpenApiDocument(file: string): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new OpenApiDocumentError(
      `${file}: cannot read the OpenAPI document (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const validator = new Validator();
  // The validator takes a string without a line break for a file name: a one-line document is still a document.
  const result = await validator.validate(`${text}\n`);
  const version = validator.version;
  if (!result.valid) {
    const errors =
      typeof result.errors === 'string'
        ? [result.errors]
        : (result.errors ?? [])
            .slice(0, 3)
            .map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`.trim());
    throw new OpenApiDocumentError(`${file}: not a valid OpenAPI document: ${errors.join('; ') || 'unknown reason'}`);
  }
  if (!/^3\.[01]/.test(String(version)))
    throw new OpenApiDocumentError(`${file}: OpenAPI ${version} is not supported; give an OpenAPI 3.0 or 3.1 document`);
  // Resolving replaces the references in place: the source is kept apart first.
  const source = structuredClone(validator.specification);
  return { ...(validator.resolveRefs() as unknown as Omit<OpenApiDocument, 'source'>), source };
}

/**
 * Where the value at `path` (keys from the root) lies in the document as written, following
 * each `$ref` met on the way: a JSON pointer a validator holding the source can compile.
 */
export function pointerTo(source: Record<string, unknown>, path: readonly string[]): string | undefined {
  const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const unescapeKey = (key: string) => key.replace(/~1/g, '/').replace(/~0/g, '~');
  let node: unknown = source;
  let pointer: string[] = [];
  const follow = () => {
    for (
      let hops = 0;
      hops < 32 && node && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string';
      hops += 1
    ) {
      const ref = (node as { $ref: string }).$ref;
      if (!ref.startsWith('#/')) return false;
      pointer = ref.slice(2).split('/').map(unescapeKey);
      node = pointer.reduce<unknown>(
        (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
        source,
      );
    }
    return true;
  };
  for (const key of path) {
    if (!follow() || !node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
    pointer.push(key);
  }
  // A value that is a reference lies where it points.
  if (!follow() || node === undefined) return undefined;
  return `#/${pointer.map(escapeKey).join('/')}`;
}

/** Every operation of a document with its path, method and the parameters of its path item. */
export function operationsOf(
  document: OpenApiDocument,
): Array<{ path: string; method: Method; operation: Operation; parameters: Parameter[] }> {
  const found = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // An operation's own parameter overrides its path item's of the same name and place.
      const own = operation.parameters ?? [];
      const inherited = (item.parameters ?? []).filter(
        (shared) => !own.some((parameter) => parameter.name === shared.name && parameter.in === shared.in),
      );
      found.push({ path, method, operation, parameters: [...inherited, ...own] });
    }
  }
  return found;
}
