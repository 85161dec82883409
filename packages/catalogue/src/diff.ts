import { compareText } from '@plugboard/sdk/host';
import { defaultPackageName } from './constants.js';
import type { CatalogueEntry } from './entry.js';
import { budgetChange } from './diff/budget.js';
import { checkpointChange } from './diff/checkpoint.js';
import { flagChanges } from './diff/operation-flags.js';
import { matchOperations } from './diff/operations.js';
import {
  CATALOGUE_RULES,
  type CatalogueChange,
  type CatalogueDiff,
  type CatalogueKind,
  type ConnectorChange,
  ofOperation,
} from './diff/rules.js';
import { dataTypeChanges, inputChanges } from './diff/schemas.js';
import { type CatalogueSnapshot, readCatalogue } from './diff/snapshot.js';
import { stableJson } from './write.js';

/**
 * Compares two catalogue folders and lists what changed for someone who uses
 * the connectors. The connectors are read from `connectors/<key>.json` (what
 * the platform serves) and the JSON Schemas beside them; `index.json` must
 * agree with them (`diff/snapshot.ts`). Every change has a kind; `CATALOGUE_RULES`
 * (`diff/rules.ts`) gives each kind its verdict and the rule behind it.
 */

/** The changes of a connector that both catalogues hold, in the order they are reported. */
function connectorChanges(
  before: CatalogueSnapshot,
  old: CatalogueEntry,
  after: CatalogueSnapshot,
  next: CatalogueEntry,
): ConnectorChange[] {
  const { pairs, changes } = matchOperations(old, next);
  for (const [was, now] of pairs) {
    const checkpoint = checkpointChange(before, was, after, now);
    const budget = budgetChange(old, was, next, now);
    changes.push(
      ...flagChanges(was, now),
      ...(checkpoint ? [ofOperation(now.key, checkpoint)] : []),
      ...(budget ? [budget] : []),
      ...inputChanges(before, old, was, after, next, now),
    );
  }
  if (stableJson(old.authentication ?? null) !== stableJson(next.authentication ?? null)) {
    changes.push({ kind: 'authentication-changed', message: `connector '${old.key}' changed its authentication` });
  }
  changes.push(...dataTypeChanges(before, old, after, next));
  return changes;
}

/** Compares two catalogues already read. */
export function diffSnapshots(before: CatalogueSnapshot, after: CatalogueSnapshot): CatalogueDiff {
  const changes: CatalogueChange[] = [];
  const afterByKey = new Map(after.entries.map((entry) => [entry.key, entry]));
  const beforeByKey = new Map(before.entries.map((entry) => [entry.key, entry]));

  for (const old of [...before.entries].sort((a, b) => compareText(a.key, b.key))) {
    const next = afterByKey.get(old.key);
    const pkg = next?.package ?? old.package ?? defaultPackageName(old.key);
    const found: ConnectorChange[] = next
      ? connectorChanges(before, old, after, next)
      : [{ kind: 'connector-removed', message: `connector '${old.key}' was removed` }];
    for (const change of found) {
      changes.push({
        connector: old.key,
        package: pkg,
        ...change,
        breaking: change.breaking ?? CATALOGUE_RULES[change.kind as CatalogueKind].breaking,
      });
    }
  }
  for (const entry of [...after.entries].sort((a, b) => compareText(a.key, b.key))) {
    if (!beforeByKey.has(entry.key)) {
      changes.push({
        kind: 'connector-added',
        breaking: false,
        connector: entry.key,
        package: entry.package ?? defaultPackageName(entry.key),
        message: `connector '${entry.key}' was added`,
      });
    }
  }
  const breaking = changes.filter((change) => change.breaking);
  const majorPackages = [...new Set(breaking.map((change) => change.package))].sort(compareText);
  return { changes, breaking, majorPackages };
}

/** Compares two catalogue folders (`OLD`, `NEW`). */
export async function diffCatalogues(oldDir: string, newDir: string): Promise<CatalogueDiff> {
  const [before, after] = await Promise.all([readCatalogue(oldDir), readCatalogue(newDir)]);
  return diffSnapshots(before, after);
}
