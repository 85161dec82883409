import type { CatalogueEntry, CatalogueOperation } from '../entry.js';
import type { ConnectorChange } from './rules.js';

/**
 * The operations of a connector's two versions, matched: the same key, or a rename (an
 * operation gone and one new that is the only one with its label, else the only one with its
 * mode and entity); what is left was removed or added.
 */

function pairRenames(
  removed: CatalogueOperation[],
  added: CatalogueOperation[],
): Array<[CatalogueOperation, CatalogueOperation]> {
  const pairs: Array<[CatalogueOperation, CatalogueOperation]> = [];
  const free = new Set(added);
  const take = (old: CatalogueOperation, test: (candidate: CatalogueOperation) => boolean) => {
    const candidates = [...free].filter(test);
    if (candidates.length !== 1) return false;
    pairs.push([old, candidates[0] as CatalogueOperation]);
    free.delete(candidates[0] as CatalogueOperation);
    return true;
  };
  const left = removed.filter(
    (old) => !take(old, (candidate) => candidate.label.trim().toLowerCase() === old.label.trim().toLowerCase()),
  );
  for (const old of left) take(old, (candidate) => candidate.mode === old.mode && candidate.entity === old.entity);
  return pairs;
}

/** The pairs of an operation before and after, in the old order, and the operations renamed, removed and added. */
export function matchOperations(
  old: CatalogueEntry,
  next: CatalogueEntry,
): { pairs: Array<[CatalogueOperation, CatalogueOperation]>; changes: ConnectorChange[] } {
  const changes: ConnectorChange[] = [];
  const nextOps = new Map(next.operations.map((operation) => [operation.key, operation]));
  const oldOps = new Map(old.operations.map((operation) => [operation.key, operation]));
  const gone = old.operations.filter((operation) => !nextOps.has(operation.key));
  const fresh = next.operations.filter((operation) => !oldOps.has(operation.key));
  const renames = pairRenames(gone, fresh);
  const renamedFrom = new Map(renames.map(([from, to]) => [from.key, to]));
  const renamedTo = new Set(renames.map(([, to]) => to.key));

  const pairs: Array<[CatalogueOperation, CatalogueOperation]> = [];
  for (const operation of old.operations) {
    const same = nextOps.get(operation.key);
    const renamed = renamedFrom.get(operation.key);
    if (same) pairs.push([operation, same]);
    else if (renamed) {
      changes.push({
        kind: 'operation-renamed',
        operation: operation.key,
        from: operation.key,
        to: renamed.key,
        message: `operation '${operation.key}' was renamed to '${renamed.key}'`,
      });
      pairs.push([operation, renamed]);
    } else
      changes.push({
        kind: 'operation-removed',
        operation: operation.key,
        message: `operation '${operation.key}' was removed`,
      });
  }
  for (const operation of fresh) {
    if (!renamedTo.has(operation.key))
      changes.push({
        kind: 'operation-added',
        operation: operation.key,
        message: `operation '${operation.key}' was added`,
      });
  }
  return { pairs, changes };
}
