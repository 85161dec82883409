import { compareText } from '@plugboard/sdk/host';
import type { CatalogueEntry, CatalogueOperation } from '../entry.js';
import { inputOptionsChanges } from '../input-options.js';
import { compareSchemas, type SchemaChange, type SchemaChangeKind } from '../schema-diff.js';
import { type ConnectorChange, ofOperation } from './rules.js';
import { type CatalogueSnapshot, dataTypeSchemaOf, inputSchemaOf } from './snapshot.js';

/**
 * The schema changes of a connector as catalogue changes: the input schema of each operation
 * (its fields, and the fields that list options) and each data type, with their messages.
 */

const SCHEMA_MESSAGES: Record<SchemaChangeKind, (field: string, from: string, to: string) => string> = {
  'field-removed': (field) => `field ${field} was removed from`,
  'field-added': (field) => `field ${field} was added to`,
  'required-input-added': (field) => `field ${field} is required in`,
  'optional-input-added': (field) => `optional field ${field} was added to`,
  'field-made-optional': (field) => `field ${field} became optional in`,
  'type-changed': (field, from, to) => `${field} changed type from ${from} to ${to} in`,
  'type-narrowed': (field, from, to) => `${field} narrowed its type from ${from} to ${to} in`,
  'type-widened': (field, from, to) => `${field} widened its type from ${from} to ${to} in`,
  'enum-value-added': (field, _from, to) => `${field} may now be ${to} in`,
  'enum-value-removed': (field, from) => `${field} no longer takes ${from} in`,
  'object-closed': (field) => `${field} no longer accepts other fields in`,
  'format-changed': (field, from, to) => `${field} changed format from ${from} to ${to} in`,
  'pattern-changed': (field, from, to) => `${field} changed pattern from ${from} to ${to} in`,
  'limit-tightened': (field, from, to) => `${field} tightened ${from} -> ${to} in`,
  'limit-loosened': (field, from, to) => `${field} loosened ${from} -> ${to} in`,
};

function schemaMessage(change: SchemaChange, where: string): string {
  const field = change.field === '' ? 'the root' : `'${change.field}'`;
  return `${SCHEMA_MESSAGES[change.kind](field, change.from ?? '', change.to ?? '')} ${where}`;
}

/** A schema change as a catalogue change: its kind, verdict, field and values, with the message given. */
function fromSchema(change: SchemaChange, message: string) {
  return {
    kind: change.kind,
    breaking: change.breaking,
    ...(change.field === '' ? {} : { field: change.field }),
    ...(change.from === undefined ? {} : { from: change.from }),
    ...(change.to === undefined ? {} : { to: change.to }),
    message,
  };
}

/** The changes of an operation's input schema: its fields (`compareSchemas`), then the fields that list options. */
export function inputChanges(
  before: CatalogueSnapshot,
  old: CatalogueEntry,
  was: CatalogueOperation,
  after: CatalogueSnapshot,
  next: CatalogueEntry,
  now: CatalogueOperation,
): ConnectorChange[] {
  const at = now.key;
  const inputs = [inputSchemaOf(before, old, was), inputSchemaOf(after, next, now)] as const;
  const fields = compareSchemas(...inputs, 'input').map((change) => {
    const message =
      change.kind === 'required-input-added'
        ? `operation '${at}' requires the input field '${change.field}'`
        : schemaMessage(change, `the input of operation '${at}'`);
    return { ...fromSchema(change, message), operation: at };
  });
  const options = inputOptionsChanges(...inputs).map((change) =>
    ofOperation(at, { ...change, text: `input field '${change.field}' ${change.text}` }),
  );
  return [...fields, ...options];
}

/** The changes of the data types the old version declared (a data type that left with its operations is reported through them). */
export function dataTypeChanges(
  before: CatalogueSnapshot,
  old: CatalogueEntry,
  after: CatalogueSnapshot,
  next: CatalogueEntry,
): ConnectorChange[] {
  const changes: ConnectorChange[] = [];
  const oldTypes = Object.keys(
    old.dataTypes ?? Object.fromEntries(old.operations.filter((o) => o.entity !== null).map((o) => [o.entity, ''])),
  );
  for (const name of oldTypes.sort(compareText)) {
    const was = dataTypeSchemaOf(before, old, name);
    const now =
      next.dataTypes?.[name] === undefined && next.dataTypes !== undefined
        ? undefined
        : dataTypeSchemaOf(after, next, name);
    if (!was || !now) continue; // a data type that left with its operations is reported through them
    for (const change of compareSchemas(was, now, 'output')) {
      changes.push({ ...fromSchema(change, schemaMessage(change, `data type '${name}'`)), entity: name });
    }
  }
  return changes;
}
