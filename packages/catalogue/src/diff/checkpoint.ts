import type { CatalogueOperation } from '../entry.js';
import { stableJson } from '../write.js';
import type { OperationChange } from './rules.js';
import type { CatalogueSnapshot } from './snapshot.js';

/**
 * The checkpoint change of one source: a version raised is a migration (the definition holds a
 * migration from every older version), a version lowered or a schema changed under the same
 * version strands the checkpoints runs kept. An entry from before checkpoint versions were
 * published says nothing to compare.
 */
export function checkpointChange(
  before: CatalogueSnapshot,
  was: CatalogueOperation,
  after: CatalogueSnapshot,
  now: CatalogueOperation,
): OperationChange | undefined {
  const from = was.incremental?.checkpointVersion;
  const to = now.incremental?.checkpointVersion;
  if (from === undefined || to === undefined) return undefined;
  const versions = { from: String(from), to: String(to) };
  if (to > from)
    return {
      kind: 'checkpoint-migrated',
      ...versions,
      text: `migrates its checkpoint from version ${from} to version ${to}`,
    };
  if (to < from)
    return {
      kind: 'checkpoint-version-lowered',
      ...versions,
      text: `lowered its checkpoint version from ${from} to ${to}: the checkpoints version ${from} kept are refused`,
    };
  const schemaOf = (snapshot: CatalogueSnapshot, operation: CatalogueOperation) =>
    stableJson(
      operation.checkpointSchema === undefined ? null : (snapshot.schemas.get(operation.checkpointSchema) ?? null),
    );
  if (schemaOf(before, was) === schemaOf(after, now)) return undefined;
  return {
    kind: 'checkpoint-changed-unmigrated',
    ...versions,
    text: `changed its checkpoint schema under version ${to}: the checkpoints runs kept are refused (give the checkpoint version ${to + 1} and a migration from ${to})`,
  };
}
