/**
 * The references of an OpenAPI document, read by where they stand: a `$ref` is a reference only
 * where the document's structure puts a keyword, never inside data an author wrote (`example`,
 * `examples`, `default`, `enum`, `const`, an Example's `value`, a vendor extension `x-...`) and
 * never as the name of a property (`properties: { $ref: ..., $id: ... }`). One walk of the
 * document finds them all, so a document of any size is read in time linear in its size.
 */

/** Keys whose value is data: a `$ref` or `$id` inside is a value like any other. */
const DATA = new Set(['example', 'default', 'enum', 'const', 'value']);
/** Keys whose value maps names to objects: a name there (`$ref`, `default`, `example`) is a name, not a keyword. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'paths',
  'webhooks',
  'components',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
  'variables',
  'mapping',
  'scopes',
  'examples',
]);
/** The words a JSON Schema tool takes for identifiers and references wherever it meets them. */
const POINTER_WORDS = new Set(['$ref', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$schema']);

type Node = Record<string, unknown> | unknown[];
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** A reference where the structure puts one: the object holding it and the path from the root to that object. */
export interface Reference {
  holder: Node;
  key: string | number;
  ref: string;
  path: string[];
}

/** How a key's value is read: keywords, a map of names, or data. */
type Reading = 'keywords' | 'names' | 'data';

function readingOf(key: string, value: unknown): Reading {
  if (key.startsWith('x-') || DATA.has(key)) return 'data';
  // A 3.1 schema's `examples` is a list of values; elsewhere it maps names to Example objects.
  if (key === 'examples' && Array.isArray(value)) return 'data';
  return NAME_MAPS.has(key) && !Array.isArray(value) ? 'names' : 'keywords';
}

/** Calls `visit` on every object and array of the document outside data, with how it is read. */
function walk(root: unknown, visit: (node: Node, path: string[], reading: Reading) => void): void {
  const path: string[] = [];
  const enter = (value: unknown, reading: Reading) => {
    if (!isNode(value) || reading === 'data') return;
    visit(value, path, reading);
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [String(index), item])
      : Object.entries(value);
    for (const [key, inner] of entries) {
      path.push(key);
      // An array's items and a map's entries are read as keywords; a keyword's value as its key says.
      enter(inner, Array.isArray(value) || reading === 'names' ? 'keywords' : readingOf(key, inner));
      path.pop();
    }
  };
  enter(root, 'keywords');
}

/** Every reference of the document, in the order met. */
export function referencesOf(document: unknown): Reference[] {
  const found: Reference[] = [];
  // The objects on the way to the one visited, by depth: only the entries up to its depth are current.
  const parents: Node[] = [];
  walk(document, (node, path, reading) => {
    parents[path.length] = node;
    if (reading !== 'keywords' || Array.isArray(node) || typeof node.$ref !== 'string' || path.length === 0) return;
    const holder = parents[path.length - 1]!;
    const key = path.at(-1)!;
    found.push({ holder, key: Array.isArray(holder) ? Number(key) : key, ref: node.$ref, path: [...path] });
  });
  return found;
}

/**
 * A copy of the document for a JSON Schema validator, which takes identifier words wherever it
 * meets them: none is left outside a reference where one stands (`$id` inside an example is
 * renamed; a property named `$id` too with `names`). A `nullable` beside no `type` is left out:
 * OpenAPI 3.0 gives it no effect there, and ajv refuses to compile it.
 */
export function forValidator(
  document: Record<string, unknown>,
  { names }: { names: boolean },
): Record<string, unknown> {
  const copy = (value: unknown, reading: Reading): unknown => {
    if (!isNode(value)) return value;
    if (Array.isArray(value)) return value.map((item) => copy(item, reading === 'data' ? 'data' : 'keywords'));
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (reading === 'keywords' && key === 'nullable' && !('type' in value)) continue;
      const isReference = reading === 'keywords' && key === '$ref' && typeof inner === 'string';
      const renamed = POINTER_WORDS.has(key) && !isReference && (reading !== 'names' || names);
      const next = reading === 'data' ? 'data' : reading === 'names' ? 'keywords' : readingOf(key, inner);
      out[renamed ? `x-plugboard-data${key}` : key] = copy(inner, next);
    }
    return out;
  };
  return copy(document, 'keywords') as Record<string, unknown>;
}

/** A JSON pointer (`#/paths/~1items/get`) from keys. */
export function pointerOf(path: readonly string[]): string {
  return `#${path.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
}

/** The keys of a local reference (`#/components/schemas/Item`), or undefined for one outside the document. */
export function keysOf(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  const fragment = ref.slice(1);
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    decoded = fragment;
  }
  return decoded
    .slice(1)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}
