import { z } from 'zod';
import type { Incremental, VersionedCheckpoint } from './definition/action.js';
import { CheckpointMigrationError, CheckpointTooNewError, type InputIssue } from './errors.js';
import { excerpt } from './excerpt.js';
import { jsonProblem, MAX_JSON_DEPTH } from './json.js';
import { zodIssues } from './validation.js';

/**
 * Checkpoint versions: what a source declares (a schema alone is version 1), how a stored
 * checkpoint carries its version (version 1 as it is, a later one in an envelope), and the
 * migration of an older one to the version the connector runs.
 */

/** A source's checkpoint declaration, every part spelled out. */
export interface CheckpointDeclaration {
  /** 1 for a schema alone, or for none. */
  version: number;
  /** Undefined when any JSON value is accepted. */
  schema: z.ZodType | undefined;
  /** `migrate[n]` turns a version-n checkpoint into a version n + 1 one. */
  migrate: VersionedCheckpoint<unknown>['migrate'];
}

const NO_MIGRATIONS = Object.freeze({});
/** The highest checkpoint version: the checks and the migrations walk every version below it. */
const MAX_VERSION = 1000;

function isVersioned(checkpoint: unknown): checkpoint is VersionedCheckpoint<unknown> {
  return typeof checkpoint === 'object' && checkpoint !== null && !(checkpoint instanceof z.ZodType);
}

/** The declaration of `incremental.checkpoint`: version 1 without a schema or with a schema alone. */
export function checkpointDeclaration(incremental: Incremental<unknown> | undefined): CheckpointDeclaration {
  const declared = incremental?.checkpoint;
  if (isVersioned(declared))
    return { version: declared.version, schema: declared.schema, migrate: declared.migrate ?? NO_MIGRATIONS };
  return { version: 1, schema: declared, migrate: NO_MIGRATIONS };
}

/** The problems of a versioned checkpoint declaration, each naming the field. */
export function checkpointProblems(incremental: Incremental<unknown>): string[] {
  const declared = incremental.checkpoint;
  if (declared === undefined || declared instanceof z.ZodType) return [];
  if (!isVersioned(declared)) return ['incremental.checkpoint must be a zod schema or { version, schema, migrate }'];
  const problems: string[] = [];
  const { version, schema, migrate } = declared;
  if (!(Number.isSafeInteger(version) && version >= 1 && version <= MAX_VERSION))
    problems.push(
      `incremental.checkpoint.version must be a whole number from 1 to ${MAX_VERSION}, not ${excerpt(String(version))}`,
    );
  if (!(schema instanceof z.ZodType)) problems.push('incremental.checkpoint.schema must be a zod schema');
  if (typeof migrate !== 'object' || migrate === null) {
    problems.push('incremental.checkpoint.migrate must map each older version to a function');
    return problems;
  }
  for (const key of Object.keys(migrate)) {
    const from = Number(key);
    if (!(Number.isSafeInteger(from) && from >= 1 && String(from) === key) || from >= version)
      problems.push(
        `incremental.checkpoint.migrate: ${excerpt(key)} is not a version below ${excerpt(String(version))}`,
      );
    else if (typeof migrate[from] !== 'function')
      problems.push(`incremental.checkpoint.migrate[${from}] must be a function`);
  }
  if (Number.isSafeInteger(version) && version <= MAX_VERSION)
    for (let from = 1; from < version; from += 1)
      if (!Object.hasOwn(migrate, from))
        problems.push(`incremental.checkpoint.migrate needs a migration from version ${from} to ${from + 1}`);
  return problems;
}

/** The key that marks a stored checkpoint of a version above 1. */
const VERSION_KEY = '$checkpointVersion';

/** A stored checkpoint, read: its value and its version (1 when stored without one). */
export interface StoredCheckpoint {
  /** The checkpoint as the connector wrote it, out of its envelope. */
  checkpoint: unknown;
  version: number;
}

/** What a store keeps for a checkpoint of a version: version 1 as it is (as before versions), a later one in an envelope. */
export function checkpointToStore(checkpoint: unknown, version: number): unknown {
  return version === 1 ? checkpoint : { [VERSION_KEY]: version, checkpoint };
}

/** A checkpoint as a store gave it back: the envelope's version and value, or the value itself as version 1. */
export function checkpointFromStore(stored: unknown): StoredCheckpoint {
  if (typeof stored === 'object' && stored !== null && !Array.isArray(stored)) {
    const keys = Object.keys(stored);
    const version = (stored as Record<string, unknown>)[VERSION_KEY];
    if (
      keys.length === 2 &&
      Object.hasOwn(stored, 'checkpoint') &&
      typeof version === 'number' &&
      Number.isSafeInteger(version) &&
      version >= 1
    )
      return { checkpoint: (stored as { checkpoint: unknown }).checkpoint, version };
  }
  return { checkpoint: stored, version: 1 };
}

/**
 * A checkpoint of version `from` made the declared version: refused when newer than the
 * connector knows, passed through each migration in turn, and the result checked as plain
 * JSON against the current schema. A checkpoint already of the current version is returned
 * as it is (its schema check is the caller's, as before versions).
 */
export function migrateCheckpoint(
  connector: string,
  action: string,
  declaration: CheckpointDeclaration,
  checkpoint: unknown,
  from: number,
): unknown {
  const to = declaration.version;
  if (from > to) throw new CheckpointTooNewError(connector, action, from, to);
  if (from === to) return checkpoint;
  const refuse = (issues: InputIssue[]) => new CheckpointMigrationError(connector, action, { from, to }, issues);
  let value = checkpoint;
  for (let version = from; version < to; version += 1) {
    try {
      value = declaration.migrate[version]!(value);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw refuse([{ path: 'checkpoint', message: `migrate[${version}] threw: ${excerpt(message)}` }]);
    }
  }
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem) throw refuse([{ path: ['checkpoint', ...problem.path].join('.'), message: problem.message }]);
  if (!declaration.schema) return value;
  const result = declaration.schema.safeParse(value);
  if (!result.success) throw refuse(zodIssues(result.error, 'checkpoint'));
  return result.data;
}
