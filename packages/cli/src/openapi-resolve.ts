import { keysOf, pointerOf, type Reference, referencesOf } from './openapi-refs.js';

/**
 * Replaces every local reference of a document by what it points to, in place: a recursive
 * schema becomes a cycle of objects (walk it with a depth bound or a set of the objects seen).
 * A reference to nowhere, or one that goes round a cycle of references without reaching
 * anything, breaks the document: `BrokenReference` names it by its JSON pointer. A reference
 * outside the document is left as written and listed as unusable: only what needs it fails.
 */

/** A reference the document cannot be read without. */
export class BrokenReference extends Error {}

/** A reference left as written, and why it cannot be used. */
export interface Unusable {
  pointer: string;
  message: string;
}

/** How many references a pointer may pass through on its way (`#/components/schemas/A/properties/b` through A's). */
const MAX_DEPTH = 64;

const isReference = (value: unknown): value is { $ref: string } =>
  typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';

/** The value at `keys` from the root, following the references met on the way; undefined when there is none. */
function lookup(root: unknown, keys: readonly string[], follow: (reference: { $ref: string }) => unknown): unknown {
  let node = root;
  for (const key of keys) {
    if (isReference(node) && !(key in node)) node = follow(node);
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function resolveReferences(document: Record<string, unknown>): { unusable: Map<object, Unusable> } {
  const references = referencesOf(document);
  const unusable = new Map<object, Unusable>();
  const outside = new Set<object>();
  for (const { holder, key, ref, path } of references) {
    if (keysOf(ref) === undefined) {
      const node = (holder as Record<string | number, object>)[key]!;
      outside.add(node);
      unusable.set(node, {
        pointer: pointerOf(path),
        message: `$ref '${ref}' points outside the document; put what it names into the document (as a component) and refer to that`,
      });
    }
  }
  const found = new Map<string, unknown>();
  /** Every reference of a chain points to what its last one does. */
  const settle = (chain: ReadonlyArray<{ ref: string }>, node: unknown) => {
    for (const link of chain) found.set(link.ref, node);
    return node;
  };
  /** What a reference met at `start` finally points to, through references to references (`depth`: references followed on the way to it). */
  const target = (start: string, ref: string, depth = 0): unknown => {
    if (found.has(ref)) return found.get(ref);
    if (depth > MAX_DEPTH)
      throw new BrokenReference(
        `${start}: $ref '${ref}' passes through itself on the way to what it names; point it at a schema`,
      );
    const chain: Array<{ at: string; ref: string }> = [{ at: start, ref }];
    // Where each link of the chain stands: a cycle is found in one step, a long chain in linear time.
    const places = new Map<string, number>();
    for (;;) {
      const { at, ref: next } = chain.at(-1)!;
      if (found.has(next)) return settle(chain, found.get(next));
      const keys = keysOf(next)!;
      const node = lookup(document, keys, (reference) => target(pointerOf(keys), reference.$ref, depth + 1));
      if (node === undefined)
        throw new BrokenReference(
          `${at}: $ref '${next}' points to nothing in the document; correct the reference or add what it names`,
        );
      if (!isReference(node) || outside.has(node)) return settle(chain, node);
      const here = pointerOf(keys);
      const round = places.get(here);
      if (round !== undefined)
        throw new BrokenReference(
          `${chain[round]!.at}: $ref '${chain[round]!.ref}' goes round a cycle of references (${[...chain.slice(round).map((link) => link.at), here].join(' → ')}) that never reaches a schema; make one of them a schema`,
        );
      places.set(here, chain.length);
      chain.push({ at: here, ref: node.$ref });
    }
  };
  const resolved = references
    .filter(({ ref }) => keysOf(ref) !== undefined)
    .map((reference: Reference) => ({ reference, value: target(pointerOf(reference.path), reference.ref) }));
  for (const { reference, value } of resolved)
    (reference.holder as Record<string | number, unknown>)[reference.key] = value;
  return { unusable };
}
