import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareText } from '@plugboard/sdk';
import { defaultPackageName } from './constants.js';
import type { CatalogueEntry, CatalogueOperation } from './entry.js';
import { type FieldRow, fieldPaths } from './fields.js';
import { dataTypeFile, INDEX_FILE, inputSchemaFile } from './paths.js';
import type { JsonObject } from './public-connector-schema.js';

/**
 * Compares two catalogue folders and lists what changed for someone who uses
 * the connectors. Breaking: a connector or an operation removed, an operation
 * renamed, its mode or entity changed, approval turned off, a required input
 * field added, a field removed from a data type. Not breaking: additions (a
 * connector, an operation, an optional input field, a data-type field).
 */

export const BREAKING_KINDS = [
  'connector-removed',
  'operation-removed',
  'operation-renamed',
  'mode-changed',
  'entity-changed',
  'approval-turned-off',
  'required-input-added',
  'field-removed',
] as const;
export const ADDITION_KINDS = ['connector-added', 'operation-added', 'optional-input-added', 'field-added'] as const;

export type BreakingKind = (typeof BREAKING_KINDS)[number];
export type AdditionKind = (typeof ADDITION_KINDS)[number];
export type ChangeKind = BreakingKind | AdditionKind;

export interface CatalogueChange {
  kind: ChangeKind;
  breaking: boolean;
  connector: string;
  /** npm package the change belongs to. */
  package: string;
  operation?: string;
  /** The data type, for a field of a data type. */
  entity?: string;
  field?: string;
  from?: string;
  to?: string;
  message: string;
}

export interface CatalogueDiff {
  changes: CatalogueChange[];
  breaking: CatalogueChange[];
  /** Packages that need a major changeset: those with at least one breaking change. */
  majorPackages: string[];
}

/** What the diff reads of a catalogue folder. */
export interface CatalogueSnapshot {
  entries: CatalogueEntry[];
  /** Relative path -> parsed JSON Schema, for the data types and inputs the entries reference. */
  schemas: ReadonlyMap<string, JsonObject>;
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CatalogueReadError(`${path} is missing`);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogueReadError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/** A folder that is not a readable catalogue. */
export class CatalogueReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogueReadError';
  }
}

function schemaRefs(entry: CatalogueEntry): string[] {
  const refs = new Set<string>(Object.values(entry.dataTypes ?? {}));
  for (const operation of entry.operations) {
    refs.add(operation.inputSchema ?? inputSchemaFile(entry.key, operation.key));
    if (operation.entity !== null) refs.add(operation.entitySchema ?? dataTypeFile(entry.key, operation.entity));
  }
  return [...refs].sort(compareText);
}

/** Reads a catalogue folder written by `generateCatalogue`. */
export async function readCatalogue(dir: string): Promise<CatalogueSnapshot> {
  const index = (await readJson(join(dir, INDEX_FILE))) as { connectors?: unknown };
  if (!index || !Array.isArray(index.connectors)) throw new CatalogueReadError(`${join(dir, INDEX_FILE)} has no list of connectors`);
  const entries = index.connectors as CatalogueEntry[];
  const schemas = new Map<string, JsonObject>();
  await Promise.all(
    entries.flatMap(schemaRefs).map(async (ref) => {
      try {
        schemas.set(ref, (await readJson(join(dir, ref))) as JsonObject);
      } catch (error) {
        if (!(error instanceof CatalogueReadError)) throw error;
        // A missing schema file compares as having no fields.
      }
    }),
  );
  return { entries, schemas };
}

const EMPTY: JsonObject = {};

function inputSchemaOf(snapshot: CatalogueSnapshot, entry: CatalogueEntry, operation: CatalogueOperation): JsonObject {
  return snapshot.schemas.get(operation.inputSchema ?? inputSchemaFile(entry.key, operation.key)) ?? EMPTY;
}

function dataTypeSchemaOf(snapshot: CatalogueSnapshot, entry: CatalogueEntry, name: string): JsonObject | undefined {
  return snapshot.schemas.get(entry.dataTypes?.[name] ?? dataTypeFile(entry.key, name));
}

function parentOf(field: string): string | undefined {
  const cut = Math.max(field.lastIndexOf('.'));
  return cut < 0 ? undefined : field.slice(0, cut).replace(/\[\]$/, '');
}

/** A path reachable only when every step on the way is present: required fields whose parent already existed. */
function compareInputs(before: Map<string, FieldRow>, after: Map<string, FieldRow>): { required: string[]; optional: string[] } {
  const required: string[] = [];
  const optional: string[] = [];
  for (const [field, row] of after) {
    const old = before.get(field);
    const parent = parentOf(field);
    const parentExisted = parent === undefined || before.has(parent);
    if (row.required && !old?.required && parentExisted) required.push(field);
    else if (!old && parentExisted && !row.required) optional.push(field);
  }
  return { required: required.sort(compareText), optional: optional.sort(compareText) };
}

/** Removed paths, keeping only the topmost of each removed subtree. */
function removedFields(before: Map<string, FieldRow>, after: Map<string, FieldRow>): string[] {
  const removed = [...before.keys()].filter((field) => !after.has(field)).sort(compareText);
  const removedSet = new Set(removed);
  return removed.filter((field) => {
    for (let parent = parentOf(field); parent !== undefined; parent = parentOf(parent)) if (removedSet.has(parent)) return false;
    return true;
  });
}

function pairRenames(removed: CatalogueOperation[], added: CatalogueOperation[]): Array<[CatalogueOperation, CatalogueOperation]> {
  const pairs: Array<[CatalogueOperation, CatalogueOperation]> = [];
  const free = new Set(added);
  const take = (old: CatalogueOperation, test: (candidate: CatalogueOperation) => boolean) => {
    const candidates = [...free].filter(test);
    if (candidates.length !== 1) return false;
    pairs.push([old, candidates[0] as CatalogueOperation]);
    free.delete(candidates[0] as CatalogueOperation);
    return true;
  };
  const left = removed.filter((old) => !take(old, (candidate) => candidate.label.trim().toLowerCase() === old.label.trim().toLowerCase()));
  for (const old of left) take(old, (candidate) => candidate.mode === old.mode && candidate.entity === old.entity);
  return pairs;
}

/** Compares two catalogues already read. */
export function diffSnapshots(before: CatalogueSnapshot, after: CatalogueSnapshot): CatalogueDiff {
  const changes: CatalogueChange[] = [];
  const afterByKey = new Map(after.entries.map((entry) => [entry.key, entry]));
  const beforeByKey = new Map(before.entries.map((entry) => [entry.key, entry]));

  for (const old of [...before.entries].sort((a, b) => compareText(a.key, b.key))) {
    const next = afterByKey.get(old.key);
    const pkg = next?.package ?? old.package ?? defaultPackageName(old.key);
    const add = (change: Omit<CatalogueChange, 'connector' | 'package' | 'breaking'>) =>
      changes.push({ connector: old.key, package: pkg, breaking: (BREAKING_KINDS as readonly string[]).includes(change.kind), ...change });
    if (!next) {
      add({ kind: 'connector-removed', message: `connector '${old.key}' was removed` });
      continue;
    }
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
        add({ kind: 'operation-renamed', operation: operation.key, from: operation.key, to: renamed.key, message: `operation '${operation.key}' was renamed to '${renamed.key}'` });
        pairs.push([operation, renamed]);
      } else add({ kind: 'operation-removed', operation: operation.key, message: `operation '${operation.key}' was removed` });
    }
    for (const operation of fresh) {
      if (!renamedTo.has(operation.key)) add({ kind: 'operation-added', operation: operation.key, message: `operation '${operation.key}' was added` });
    }

    for (const [was, now] of pairs) {
      const at = now.key;
      if (was.mode !== now.mode) {
        add({ kind: 'mode-changed', operation: at, from: was.mode, to: now.mode, message: `operation '${at}' changed mode from ${was.mode} to ${now.mode}` });
      }
      if (was.entity !== now.entity) {
        add({ kind: 'entity-changed', operation: at, from: String(was.entity), to: String(now.entity), message: `operation '${at}' changed entity from ${String(was.entity)} to ${String(now.entity)}` });
      }
      if (was.approvalRequired && !now.approvalRequired) {
        add({ kind: 'approval-turned-off', operation: at, from: was.approval ?? 'required', to: now.approval ?? 'none', message: `operation '${at}' no longer requires approval` });
      } else if (was.approval === 'always' && now.approval === 'production') {
        add({ kind: 'approval-turned-off', operation: at, from: 'always', to: 'production', message: `operation '${at}' requires approval only before production now (was always)` });
      }
      const inputs = compareInputs(fieldPaths(inputSchemaOf(before, old, was)), fieldPaths(inputSchemaOf(after, next, now)));
      for (const field of inputs.required) {
        add({ kind: 'required-input-added', operation: at, field, message: `operation '${at}' requires the input field '${field}'` });
      }
      for (const field of inputs.optional) {
        add({ kind: 'optional-input-added', operation: at, field, message: `operation '${at}' accepts the optional input field '${field}'` });
      }
    }

    const oldTypes = Object.keys(old.dataTypes ?? Object.fromEntries(old.operations.filter((o) => o.entity !== null).map((o) => [o.entity, ''])));
    for (const name of oldTypes.sort(compareText)) {
      const was = dataTypeSchemaOf(before, old, name);
      const now = next.dataTypes?.[name] === undefined && next.dataTypes !== undefined ? undefined : dataTypeSchemaOf(after, next, name);
      if (!was || !now) continue; // a data type that left with its operations is reported through them
      const wasFields = fieldPaths(was);
      const nowFields = fieldPaths(now);
      for (const field of removedFields(wasFields, nowFields)) {
        add({ kind: 'field-removed', entity: name, field, message: `field '${field}' was removed from data type '${name}'` });
      }
      for (const field of [...nowFields.keys()].filter((field) => !wasFields.has(field)).sort(compareText)) {
        const parent = parentOf(field);
        if (parent === undefined || wasFields.has(parent)) add({ kind: 'field-added', entity: name, field, message: `field '${field}' was added to data type '${name}'` });
      }
    }
  }
  for (const entry of [...after.entries].sort((a, b) => compareText(a.key, b.key))) {
    if (!beforeByKey.has(entry.key)) {
      changes.push({ kind: 'connector-added', breaking: false, connector: entry.key, package: entry.package ?? defaultPackageName(entry.key), message: `connector '${entry.key}' was added` });
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

function subject(change: CatalogueChange): string {
  if (change.entity !== undefined) return `${change.connector} ${change.entity}${change.field ? `.${change.field}` : ''}`;
  if (change.operation !== undefined) return `${change.connector} ${change.operation}${change.field ? ` ${change.field}` : ''}`;
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
  for (const change of diff.changes.filter((item) => !item.breaking)) lines.push(`added ${change.kind} ${subject(change)}: ${change.message}`);
  for (const pkg of diff.majorPackages) {
    const count = diff.breaking.filter((change) => change.package === pkg).length;
    lines.push(`major changeset needed: ${pkg} (${count} breaking change${count === 1 ? '' : 's'})`);
  }
  if (diff.majorPackages.length === 0) lines.push('no major changeset needed');
  return `${lines.join('\n')}\n`;
}
