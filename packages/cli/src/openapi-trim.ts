import { keysOf, referencesOf } from './openapi-refs.js';
import { METHODS } from './openapi-document.js';

/**
 * Of a document as written, the chosen operations and everything they reference, through
 * references to references: what a scaffold keeps as its stand-in's document. Nothing is
 * edited: every value kept is the provider's, in the document's order. A reference inside an
 * example is data and keeps nothing (openapi-refs.ts).
 */

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};

/** The operations `chosen` (`METHOD path`, lower-case method) of `written` and what they need. */
export function trimmedDocument(written: Fields, chosen: ReadonlySet<string>): Fields {
  const paths: Fields = {};
  for (const [path, item] of Object.entries(fieldsOf(written.paths))) {
    const kept = Object.entries(fieldsOf(item)).filter(
      ([key]) => !(METHODS as readonly string[]).includes(key) || chosen.has(`${key} ${path}`),
    );
    if (kept.some(([key]) => (METHODS as readonly string[]).includes(key))) paths[path] = Object.fromEntries(kept);
  }
  const components = fieldsOf(written.components);
  const needed = new Map<string, Set<string>>();
  const need = (value: unknown) => {
    for (const { ref } of referencesOf(value)) {
      const [top, kind, name] = keysOf(ref) ?? [];
      if (top !== 'components' || kind === undefined || name === undefined) continue;
      const names = needed.get(kind) ?? new Set<string>();
      needed.set(kind, names);
      if (names.has(name)) continue;
      names.add(name);
      need(fieldsOf(components[kind])[name]);
    }
  };
  need({ paths, security: written.security });
  // A security scheme is named by a requirement, not referenced.
  const required = [written, ...operationsIn(paths)].flatMap((at) =>
    (Array.isArray(at.security) ? (at.security as Fields[]) : []).flatMap((requirement) => Object.keys(requirement)),
  );
  for (const name of required) {
    const schemes = needed.get('securitySchemes') ?? new Set<string>();
    needed.set('securitySchemes', schemes.add(name));
  }
  const tags = new Set(operationsIn(paths).flatMap((operation) => (operation.tags as string[] | undefined) ?? []));
  const trimmed: Fields = {};
  for (const [key, value] of Object.entries(written)) {
    if (key === 'paths') trimmed.paths = paths;
    else if (key === 'components') trimmed.components = keptComponents(components, needed);
    else if (key === 'tags' && Array.isArray(value))
      trimmed.tags = value.filter((tag) => tags.has(fieldsOf(tag).name as string));
    // Webhooks are operations the provider calls: none of them is chosen.
    else if (key !== 'webhooks') trimmed[key] = value;
  }
  return trimmed;
}

function operationsIn(paths: Fields): Fields[] {
  return Object.values(paths).flatMap((item) =>
    Object.entries(fieldsOf(item))
      .filter(([key]) => (METHODS as readonly string[]).includes(key))
      .map(([, operation]) => fieldsOf(operation)),
  );
}

/** The components named in `needed`, in the document's order; a kind with none left is left out. */
function keptComponents(components: Fields, needed: ReadonlyMap<string, ReadonlySet<string>>): Fields {
  const kept: Fields = {};
  for (const [kind, entries] of Object.entries(components)) {
    const names = needed.get(kind);
    const left = Object.entries(fieldsOf(entries)).filter(([name]) => names?.has(name));
    if (left.length > 0) kept[kind] = Object.fromEntries(left);
  }
  return kept;
}
