import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { keysOf, referencesOf, forValidator } from './openapi-refs.js';
import { BrokenReference, resolveReferences, type Unusable } from './openapi-resolve.js';
import { UsageError } from './usage.js';

/**
 * An OpenAPI 3.x document read from a file (JSON or YAML), checked against the OpenAPI
 * schema of its version and with every `$ref` replaced by what it points to (a recursive
 * schema becomes a cycle of objects: walk it with a depth bound). References are found by
 * where they stand (openapi-refs.ts): examples are data, and a property may be named `$id`.
 */

export interface OpenApiDocument {
  /** `3.0.x` or `3.1.x`, as the document says. */
  openapi: string;
  servers?: Array<{ url: string }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, PathItem>;
  components?: {
    securitySchemes?: Record<string, SecurityScheme>;
    schemas?: Record<string, Schema>;
  };
  /**
   * The document as written, `$ref`s and all: what a validator compiles a recursive schema from
   * (through `forValidator`: an identifier inside an example is data, not a schema's).
   */
  source: Record<string, unknown>;
  /** The references that cannot be used (outside the document), by the object left in their place. */
  unusable: ReadonlyMap<object, Unusable>;
}

export type { Unusable } from './openapi-resolve.js';

/** A security scheme as the document declares it (what a scaffold reads of it). */
export interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
  scheme?: string;
  /** An `oauth2` scheme's flows, by their name (`authorizationCode`, `clientCredentials`, `implicit`, `password`). */
  flows?: Record<string, { authorizationUrl?: unknown; tokenUrl?: unknown; scopes?: unknown } | undefined>;
  openIdConnectUrl?: unknown;
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

/** The document's text as data: JSON when it starts like JSON, else YAML (which JSON is a part of). */
function parsed(file: string, text: string): unknown {
  // Each parser's message says where: JSON's quotes the text around the fault or its line and column, YAML's its line and column.
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new OpenApiDocumentError(`${file}: not JSON: ${(error as Error).message}; correct the text there`);
    }
  }
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const said = (error as Error).message.split('\n')[0]!.replace(/:$/, '');
    throw new OpenApiDocumentError(`${file}: not YAML: ${said}; correct the text there`);
  }
}

/** The structure's refusal in the CLI's words: where in the document, what is wrong there. */
function invalid(file: string, errors: string | Array<{ instancePath?: string; message?: string }> | undefined) {
  const said =
    typeof errors === 'string'
      ? [errors]
      : (errors ?? []).slice(0, 3).map((error) => `#${error.instancePath ?? ''} ${error.message ?? ''}`.trim());
  return new OpenApiDocumentError(
    `${file}: not a valid OpenAPI document: ${said.join('; ') || 'unknown reason'}; correct it there (the OpenAPI specification of its version says what each place takes)`,
  );
}

export async function loadOpenApiDocument(file: string): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new OpenApiDocumentError(
      `${file}: cannot read the OpenAPI document (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const data = parsed(file, text);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new OpenApiDocumentError(`${file}: not a valid OpenAPI document: it is not an object of fields`);
  const written = data as Record<string, unknown>;
  const resolved = structuredClone(written);
  let unusable: Map<object, Unusable>;
  try {
    ({ unusable } = resolveReferences(resolved));
  } catch (error) {
    if (error instanceof BrokenReference) throw new OpenApiDocumentError(`${file}: ${error.message}`);
    throw error;
  }
  const validator = new Validator();
  // Examples and vendor extensions are data: a `$id` there, or a property named so, is no identifier of the validator's.
  const result = await validator.validate(forValidator(outsideAsLocal(written), { names: true }));
  const version = validator.version;
  if (!result.valid) throw invalid(file, result.errors);
  if (!/^3\.[01]/.test(String(version)))
    throw new OpenApiDocumentError(`${file}: OpenAPI ${version} is not supported; give an OpenAPI 3.0 or 3.1 document`);
  return { ...(resolved as unknown as Omit<OpenApiDocument, 'source' | 'unusable'>), source: written, unusable };
}

/** A copy in which each reference outside the document points at its root: the validator checks only the local ones. */
function outsideAsLocal(document: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(document);
  for (const { holder, key, ref } of referencesOf(copy))
    if (keysOf(ref) === undefined) (holder as Record<string | number, { $ref: string }>)[key]!.$ref = '#';
  return copy;
}

/** The first reference `value` reaches that cannot be used (one outside the document), with where it is and what to do. */
export function unusableIn(document: OpenApiDocument, value: unknown): Unusable | undefined {
  if (document.unusable.size === 0) return undefined;
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const found = document.unusable.get(node);
    if (found) return found;
    pending.push(...Object.values(node));
  }
  return undefined;
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
