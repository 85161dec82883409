import type { CatalogueChange, CatalogueDiff } from './rules.js';

function subject(change: CatalogueChange): string {
  if (change.entity !== undefined)
    return `${change.connector} ${change.entity}${change.field ? `.${change.field}` : ''}`;
  if (change.operation !== undefined)
    return `${change.connector} ${change.operation}${change.field ? ` ${change.field}` : ''}`;
  return change.connector;
}

/**
 * Human text of a diff, one line per change:
 *   `BREAKING <kind> <connector> <operation|entity.field>: <message>`
 *   `added <kind> <connector> ...: <message>`
 * then, when something breaks, one line per package:
 *   `major changeset needed: <package> (<n> breaking changes)`.
 */
export function formatDiff(diff: CatalogueDiff): string {
  const lines: string[] = [];
  const additions = diff.changes.length - diff.breaking.length;
  lines.push(
    `catalogue diff: ${diff.breaking.length} breaking change${diff.breaking.length === 1 ? '' : 's'}, ${additions} non-breaking change${additions === 1 ? '' : 's'}`,
  );
  for (const change of diff.breaking) lines.push(`BREAKING ${change.kind} ${subject(change)}: ${change.message}`);
  for (const change of diff.changes.filter((item) => !item.breaking))
    lines.push(`added ${change.kind} ${subject(change)}: ${change.message}`);
  for (const pkg of diff.majorPackages) {
    const count = diff.breaking.filter((change) => change.package === pkg).length;
    lines.push(`major changeset needed: ${pkg} (${count} breaking change${count === 1 ? '' : 's'})`);
  }
  if (diff.majorPackages.length === 0) lines.push('no major changeset needed');
  return `${lines.join('\n')}\n`;
}
