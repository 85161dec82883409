import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareText } from '@plugboard/sdk';
import { PERIOD_MS } from '@plugboard/sdk/host';
import { defaultPackageName } from './constants.js';
import type { CatalogueEntry, CatalogueOperation } from './entry.js';
import { inputOptionsChanges } from './input-options.js';
import { connectorFile, dataTypeFile, INDEX_FILE, inputSchemaFile } from './paths.js';
import type { JsonObject } from './public-connector-schema.js';
import { compareSchemas, type SchemaChange, type SchemaChangeKind } from './schema-diff.js';
import { stableJson } from './write.js';

/**
 * Compares two catalogue folders and lists what changed for someone who uses
 * the connectors. The connectors are read from `connectors/<key>.json` (what
 * the platform serves) and the JSON Schemas beside them; `index.json` must
 * agree with them. Every change has a kind; the table below gives each kind
 * its verdict and the rule behind it (schema kinds: see `SCHEMA_RULES`, whose
 * verdict depends on whether the schema is read by consumers or written by
 * callers).
 */

export const CATALOGUE_RULES = {
  'connector-removed': { breaking: true, rule: 'every user of the connector loses it' },
  'operation-removed': { breaking: true, rule: 'flows calling the operation stop working' },
  'operation-renamed': { breaking: true, rule: 'flows call the operation by its key' },
  'mode-changed': { breaking: true, rule: 'a source and a destination are used in different places of a flow' },
  'entity-changed': { breaking: true, rule: 'consumers expect records of the old data type' },
  'approval-turned-off': { breaking: true, rule: 'a check the workspace relies on disappears' },
  'approval-turned-on': { breaking: true, rule: 'unattended runs now stop for a person to approve' },
  'billable-turned-on': { breaking: true, rule: 'runs now cost money where they did not' },
  // Effects: a change towards more effect breaks (what was safe to call, or to repeat, no longer is).
  'writes-turned-on': { breaking: true, rule: 'calls that changed nothing at the provider now change data there' },
  'idempotent-turned-off': {
    breaking: true,
    rule: 'repeating a call with the same input now acts again, and a failed call is no longer retried',
  },
  'destructive-turned-on': { breaking: true, rule: 'calls may now delete or overwrite data that was there before' },
  'rate-budget-tightened': {
    breaking: true,
    rule: 'a lower limit, a longer period or a shared scope: runs that fit today may be throttled',
  },
  'authentication-changed': { breaking: true, rule: 'existing connections were made for the old authentication' },
  'input-options-removed': {
    breaking: true,
    rule: "a host that lists the field's options (a picker) is refused: the field no longer declares them",
  },
  'checkpoint-changed-unmigrated': {
    breaking: true,
    rule: 'the checkpoints runs kept have the old shape and are refused: a new checkpoint version with a migration keeps them',
  },
  'checkpoint-version-lowered': {
    breaking: true,
    rule: 'a checkpoint the newer version kept is refused: the stream stops until it is reset',
  },
  'idempotency-key-dropped': {
    breaking: true,
    rule: "the provider no longer gets the run's idempotency key: a write whose answer was lost waits for an operator instead of being sent again",
  },
  'connector-added': { breaking: false, rule: 'nobody depends on it yet' },
  'operation-added': { breaking: false, rule: 'nobody calls it yet' },
  'billable-turned-off': { breaking: false, rule: 'runs cost less' },
  'writes-turned-off': { breaking: false, rule: 'the call reads only now: every use that was safe stays safe' },
  'idempotent-turned-on': { breaking: false, rule: 'repeating a call has no further effect now' },
  'destructive-turned-off': { breaking: false, rule: 'the call no longer deletes or overwrites data' },
  'rate-budget-loosened': {
    breaking: false,
    rule: 'a higher limit or a shorter period lets every run through that passed before',
  },
  'input-options-added': { breaking: false, rule: 'a host may offer a picker now; every value taken before still is' },
  'input-options-changed': {
    breaking: false,
    rule: 'the options are still values of the field; only where they are listed from, or who applies the search, changed',
  },
  'checkpoint-migrated': { breaking: false, rule: 'runs resume from the checkpoints kept before, migrated' },
  'idempotency-key-sent': {
    breaking: false,
    rule: "the provider deduplicates on the run's idempotency key now: a write whose answer was lost is sent again with it",
  },
} as const satisfies Record<string, { breaking: boolean; rule: string }>;

export type CatalogueKind = keyof typeof CATALOGUE_RULES;
/** Kinds that always break. */
export const BREAKING_KINDS = (Object.keys(CATALOGUE_RULES) as CatalogueKind[]).filter(
  (kind) => CATALOGUE_RULES[kind].breaking,
);
/** Kinds that never break. */
export const ADDITION_KINDS = (Object.keys(CATALOGUE_RULES) as CatalogueKind[]).filter(
  (kind) => !CATALOGUE_RULES[kind].breaking,
);

export type BreakingKind = {
  [K in CatalogueKind]: (typeof CATALOGUE_RULES)[K]['breaking'] extends true ? K : never;
}[CatalogueKind];
export type AdditionKind = Exclude<CatalogueKind, BreakingKind>;
export type ChangeKind = CatalogueKind | SchemaChangeKind;

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
    if (operation.checkpointSchema !== undefined) refs.add(operation.checkpointSchema);
  }
  return [...refs].sort(compareText);
}

/** A catalogue folder whose `index.json` disagrees with its connector files, or that lacks a schema file. */
export class CatalogueMismatchError extends CatalogueReadError {
  constructor(
    readonly dir: string,
    readonly problems: string[],
  ) {
    super(`${dir}: the catalogue does not hold together: ${problems.join('; ')}`);
    this.name = 'CatalogueMismatchError';
  }
}

/**
 * Reads a catalogue folder written by `generateCatalogue`: the connectors from
 * `connectors/<key>.json` (what the platform serves), checked against
 * `index.json` (the same connectors, the same entries), and every schema file
 * they reference.
 */
export async function readCatalogue(dir: string): Promise<CatalogueSnapshot> {
  const index = (await readJson(join(dir, INDEX_FILE))) as { connectors?: unknown };
  if (!index || !Array.isArray(index.connectors))
    throw new CatalogueReadError(`${join(dir, INDEX_FILE)} has no list of connectors`);
  const listed = index.connectors as CatalogueEntry[];
  let names: string[];
  try {
    names = (await readdir(join(dir, 'connectors'))).filter((name) => name.endsWith('.json')).sort(compareText);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    names = [];
  }
  const files = new Map<string, CatalogueEntry>();
  for (const name of names)
    files.set(`connectors/${name}`, (await readJson(join(dir, 'connectors', name))) as CatalogueEntry);
  const problems: string[] = [];
  const claimed = new Set<string>();
  for (const entry of listed) {
    const path = connectorFile(String(entry?.key));
    claimed.add(path);
    const file = files.get(path);
    if (!file) problems.push(`connector '${String(entry?.key)}' is in index.json but ${path} is missing`);
    else if (file.key !== entry.key)
      problems.push(`${path} holds connector '${String(file.key)}', index.json lists '${entry.key}'`);
    else if (stableJson(file) !== stableJson(entry)) {
      const versions =
        file.version === entry.version
          ? ''
          : ` (version ${String(entry.version)} in index.json, ${String(file.version)} in the file)`;
      problems.push(`connector '${entry.key}' differs between index.json and ${path}${versions}`);
    }
  }
  for (const [path, file] of files)
    if (!claimed.has(path)) problems.push(`${path} (connector '${String(file?.key)}') is not in index.json`);
  if (problems.length > 0) throw new CatalogueMismatchError(dir, problems);

  const entries = listed.map((entry) => files.get(connectorFile(entry.key)) as CatalogueEntry);
  const schemas = new Map<string, JsonObject>();
  const missing: string[] = [];
  await Promise.all(
    entries.flatMap(schemaRefs).map(async (ref) => {
      try {
        schemas.set(ref, (await readJson(join(dir, ref))) as JsonObject);
      } catch (error) {
        if (!(error instanceof CatalogueReadError)) throw error;
        missing.push(error.message);
      }
    }),
  );
  if (missing.length > 0) throw new CatalogueMismatchError(dir, missing.sort(compareText));
  return { entries, schemas };
}

const EMPTY: JsonObject = {};

function inputSchemaOf(snapshot: CatalogueSnapshot, entry: CatalogueEntry, operation: CatalogueOperation): JsonObject {
  return snapshot.schemas.get(operation.inputSchema ?? inputSchemaFile(entry.key, operation.key)) ?? EMPTY;
}

function dataTypeSchemaOf(snapshot: CatalogueSnapshot, entry: CatalogueEntry, name: string): JsonObject | undefined {
  return snapshot.schemas.get(entry.dataTypes?.[name] ?? dataTypeFile(entry.key, name));
}

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

type Budget = { limit: number; per: string; scope: string };

function budgetOf(entry: CatalogueEntry, operation: CatalogueOperation): Budget | undefined {
  const name = operation.rateBudget;
  if (name === undefined) return undefined;
  return (entry.rateLimits as Record<string, Budget> | undefined)?.[name];
}

function budgetText(budget: Budget | undefined): string {
  return budget === undefined ? 'none' : `${budget.limit} per ${budget.per} (${budget.scope ?? 'connection'})`;
}

function periodMs(per: string): number {
  return (PERIOD_MS as Record<string, number>)[per] ?? Number.POSITIVE_INFINITY;
}

/**
 * A budget tightens when a limit appears, the limit drops, the period grows, or
 * it becomes shared by the whole connector; it loosens the other way round.
 */
function compareBudgets(
  was: Budget | undefined,
  now: Budget | undefined,
): { kind: 'rate-budget-tightened' | 'rate-budget-loosened'; from: string; to: string } | undefined {
  const from = budgetText(was);
  const to = budgetText(now);
  if (from === to) return undefined;
  if (!was) return { kind: 'rate-budget-tightened', from, to };
  if (!now) return { kind: 'rate-budget-loosened', from, to };
  const tighter =
    now.limit < was.limit ||
    periodMs(now.per) > periodMs(was.per) ||
    ((was.scope ?? 'connection') === 'connection' && now.scope === 'connector');
  return { kind: tighter ? 'rate-budget-tightened' : 'rate-budget-loosened', from, to };
}

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

type EffectChange = Pick<CatalogueChange, 'kind' | 'from' | 'to'> & { text: string };

/**
 * The checkpoint change of one source: a version raised is a migration (the definition holds a
 * migration from every older version), a version lowered or a schema changed under the same
 * version strands the checkpoints runs kept. An entry from before checkpoint versions were
 * published says nothing to compare.
 */
function checkpointChange(
  before: CatalogueSnapshot,
  was: CatalogueOperation,
  after: CatalogueSnapshot,
  now: CatalogueOperation,
): (Pick<CatalogueChange, 'kind' | 'from' | 'to'> & { text: string }) | undefined {
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

function effectText(effect: NonNullable<CatalogueOperation['effect']>): string {
  if (!effect.writes) return 'reads only';
  const facts = [effect.idempotent ? 'idempotent' : 'not idempotent', effect.destructive ? 'destructive' : ''];
  return `writes (${facts.filter(Boolean).join(', ')})`;
}

/**
 * The effect changes of one operation. Reading only or writing is the first fact: when it
 * changes, that one change is reported (a read is idempotent and not destructive by nature);
 * else idempotent and destructive are compared. An entry from before effects were published
 * says nothing to compare.
 */
function effectChanges(was: CatalogueOperation, now: CatalogueOperation): EffectChange[] {
  if (was.effect === undefined || now.effect === undefined) return [];
  const from = effectText(was.effect);
  const to = effectText(now.effect);
  if (was.effect.writes !== now.effect.writes) {
    return [
      { kind: now.effect.writes ? 'writes-turned-on' : 'writes-turned-off', from, to, text: `${to} now (was ${from})` },
    ];
  }
  const changes: EffectChange[] = [];
  if (was.effect.idempotent !== now.effect.idempotent) {
    const kind = now.effect.idempotent ? 'idempotent-turned-on' : 'idempotent-turned-off';
    changes.push({ kind, from, to, text: now.effect.idempotent ? 'is idempotent now' : 'is no longer idempotent' });
  }
  if (was.effect.destructive !== now.effect.destructive) {
    const kind = now.effect.destructive ? 'destructive-turned-on' : 'destructive-turned-off';
    changes.push({ kind, from, to, text: now.effect.destructive ? 'is destructive now' : 'is no longer destructive' });
  }
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
    const add = (change: Omit<CatalogueChange, 'connector' | 'package' | 'breaking'> & { breaking?: boolean }) =>
      changes.push({
        connector: old.key,
        package: pkg,
        ...change,
        breaking: change.breaking ?? CATALOGUE_RULES[change.kind as CatalogueKind].breaking,
      });
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
        add({
          kind: 'operation-renamed',
          operation: operation.key,
          from: operation.key,
          to: renamed.key,
          message: `operation '${operation.key}' was renamed to '${renamed.key}'`,
        });
        pairs.push([operation, renamed]);
      } else
        add({
          kind: 'operation-removed',
          operation: operation.key,
          message: `operation '${operation.key}' was removed`,
        });
    }
    for (const operation of fresh) {
      if (!renamedTo.has(operation.key))
        add({ kind: 'operation-added', operation: operation.key, message: `operation '${operation.key}' was added` });
    }

    for (const [was, now] of pairs) {
      const at = now.key;
      if (was.mode !== now.mode) {
        add({
          kind: 'mode-changed',
          operation: at,
          from: was.mode,
          to: now.mode,
          message: `operation '${at}' changed mode from ${was.mode} to ${now.mode}`,
        });
      }
      if (was.entity !== now.entity) {
        add({
          kind: 'entity-changed',
          operation: at,
          from: String(was.entity),
          to: String(now.entity),
          message: `operation '${at}' changed entity from ${String(was.entity)} to ${String(now.entity)}`,
        });
      }
      if (was.approvalRequired && !now.approvalRequired) {
        add({
          kind: 'approval-turned-off',
          operation: at,
          from: was.approval ?? 'required',
          to: now.approval ?? 'none',
          message: `operation '${at}' no longer requires approval`,
        });
      } else if (was.approval === 'always' && now.approval === 'production') {
        add({
          kind: 'approval-turned-off',
          operation: at,
          from: 'always',
          to: 'production',
          message: `operation '${at}' requires approval only before production now (was always)`,
        });
      } else if (!was.approvalRequired && now.approvalRequired) {
        add({
          kind: 'approval-turned-on',
          operation: at,
          from: was.approval ?? 'none',
          to: now.approval ?? 'required',
          message: `operation '${at}' requires approval now`,
        });
      } else if (was.approval === 'production' && now.approval === 'always') {
        add({
          kind: 'approval-turned-on',
          operation: at,
          from: 'production',
          to: 'always',
          message: `operation '${at}' requires approval always now (was before production only)`,
        });
      }
      if (was.billable !== true && now.billable === true) {
        add({
          kind: 'billable-turned-on',
          operation: at,
          from: 'not billable',
          to: 'billable',
          message: `operation '${at}' is billable now`,
        });
      } else if (was.billable === true && now.billable !== true) {
        add({
          kind: 'billable-turned-off',
          operation: at,
          from: 'billable',
          to: 'not billable',
          message: `operation '${at}' is no longer billable`,
        });
      }
      const header = { was: was.idempotencyHeader, now: now.idempotencyHeader };
      if ((header.was === undefined) !== (header.now === undefined)) {
        add({
          kind: header.now === undefined ? 'idempotency-key-dropped' : 'idempotency-key-sent',
          operation: at,
          from: header.was ?? 'none',
          to: header.now ?? 'none',
          message:
            header.now === undefined
              ? `operation '${at}' no longer sends the run's idempotency key to the provider (was in ${header.was})`
              : `operation '${at}' sends the run's idempotency key to the provider in ${header.now}`,
        });
      }
      const checkpoint = checkpointChange(before, was, after, now);
      for (const { text, ...change } of [...effectChanges(was, now), ...(checkpoint ? [checkpoint] : [])]) {
        add({ ...change, operation: at, message: `operation '${at}' ${text}` });
      }
      const budget = compareBudgets(budgetOf(old, was), budgetOf(next, now));
      if (budget) {
        const verb = budget.kind === 'rate-budget-tightened' ? 'tightened' : 'loosened';
        add({
          kind: budget.kind,
          operation: at,
          from: budget.from,
          to: budget.to,
          message: `operation '${at}' rate budget ${verb} from ${budget.from} to ${budget.to}`,
        });
      }
      for (const change of compareSchemas(inputSchemaOf(before, old, was), inputSchemaOf(after, next, now), 'input')) {
        const message =
          change.kind === 'required-input-added'
            ? `operation '${at}' requires the input field '${change.field}'`
            : schemaMessage(change, `the input of operation '${at}'`);
        add({ ...fromSchema(change, message), operation: at });
      }
      const inputs = [inputSchemaOf(before, old, was), inputSchemaOf(after, next, now)] as const;
      for (const { text, ...change } of inputOptionsChanges(...inputs)) {
        add({ ...change, operation: at, message: `operation '${at}' input field '${change.field}' ${text}` });
      }
    }
    if (stableJson(old.authentication ?? null) !== stableJson(next.authentication ?? null)) {
      add({ kind: 'authentication-changed', message: `connector '${old.key}' changed its authentication` });
    }

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
        add({ ...fromSchema(change, schemaMessage(change, `data type '${name}'`)), entity: name });
      }
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
