import type { z } from 'zod';
import { checkpointDeclaration, migrateCheckpoint } from '../checkpoint.js';
import { resolveConnection } from '../connection.js';
import { type Action, needsApproval } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { ConnectorError, InvalidInputError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { describeJsonType, type JsonPath, jsonProblem, MAX_JSON_DEPTH } from '../json.js';
import { boundedIssues, zodIssues } from '../validation.js';
import { Prepared, type PreparedRun } from './prepared.js';
import type { RunOptions } from '../run-options.js';

export class UnknownActionError extends ConnectorError {
  constructor(connector: Connector, key: string) {
    super(
      `connector '${connector.key}' has no action '${excerpt(key)}'; it has ${connector.actions.map((action) => action.key).join(', ')}`,
      { code: 'unknown_action', retryable: false, platformStatus: 404 },
    );
  }
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  onIssues: (error: z.ZodError) => Error,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw onIssues(result.error);
  return result.data;
}

/** `a.b.0.c`: a path the way input issues name one. */
function issuePath(prefix: string | undefined, path: JsonPath): string {
  return [...(prefix ? [prefix] : []), ...path.map(String)].join('.');
}

/** What a run's value is, as its errors name it: `connector action: input`. Put into words only for an error. */
function subjectOf(connector: Connector, action: Action, part: 'input' | 'checkpoint'): string {
  return `${connector.key} ${action.key}: ${part}`;
}

/**
 * A caller's value checked before zod or anything else walks it: plain JSON data (no NaN,
 * bigint, function, symbol, Date, Map, class instance, cycle or throwing getter), nested at
 * most `MAX_JSON_DEPTH` levels, and for an input an object at its root. A checkpoint's issues
 * are named under `checkpoint`.
 */
function checkJson(value: unknown, connector: Connector, action: Action, part: 'input' | 'checkpoint'): void {
  const prefix = part === 'checkpoint' ? part : undefined;
  // An object literal is the common case; anything else is described, which costs a string.
  const literal = value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
  if (part === 'input' && !literal && describeJsonType(value) !== 'an object') {
    throw new InvalidInputError(subjectOf(connector, action, part), [
      { path: prefix ?? '', message: `must be a JSON object, not ${describeJsonType(value)}` },
    ]);
  }
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem)
    throw new InvalidInputError(
      subjectOf(connector, action, part),
      boundedIssues([{ path: issuePath(prefix, problem.path), message: problem.message }]),
    );
}

/**
 * Checks everything about a run that can be checked before it starts; nothing is sent. The
 * input must be a JSON object (none at all counts as `{}`) of plain JSON data nested at most
 * `MAX_JSON_DEPTH` (64) levels; the action's schema then validates it.
 */
export function prepareRun(
  connector: Connector,
  actionKey: string,
  options: Pick<RunOptions, 'input' | 'connection' | 'environment' | 'checkpoint'>,
): PreparedRun {
  const action = connector.action(actionKey);
  if (!action) throw new UnknownActionError(connector, actionKey);
  const environment = options.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new InvalidInputError('environment', [{ path: 'environment', message: "must be 'sandbox' or 'production'" }]);
  }
  const connection = resolveConnection(connector, options.connection, environment);
  const raw = options.input === undefined ? {} : options.input;
  checkJson(raw, connector, action, 'input');
  // No closure and no subject string per run: they are made only for an error.
  const parsed = action.input.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(subjectOf(connector, action, 'input'), zodIssues(parsed.error));
  const input = parsed.data;
  const issues = action.check?.(input, { environment }) ?? [];
  if (issues.length > 0) throw new InvalidInputError(subjectOf(connector, action, 'input'), boundedIssues(issues));
  return new Prepared(
    connector,
    action,
    input,
    connection,
    environment,
    checkpointOf(connector, action, options.checkpoint),
    needsApproval(action, environment),
  );
}

/** A checkpoint of the declared version, or of `version`, migrated to the declared one. */
function checkpointOf(connector: Connector, action: Action, checkpoint: unknown, version?: number): unknown {
  if (action.direction !== 'source' || checkpoint === undefined) return checkpoint;
  const subject = subjectOf(connector, action, 'checkpoint');
  checkJson(checkpoint, connector, action, 'checkpoint');
  const declaration = checkpointDeclaration(action.incremental);
  if (version !== undefined && version !== declaration.version)
    return migrateCheckpoint(connector.key, action.key, declaration, checkpoint, version);
  if (!declaration.schema) return checkpoint;
  return parseOrThrow(
    declaration.schema,
    checkpoint,
    (error) => new InvalidInputError(subject, zodIssues(error, 'checkpoint')),
  );
}

/**
 * The prepared run, resuming from a checkpoint of `version` (default: the action's own): one of
 * an older version is migrated, one of a newer version refused (`CheckpointTooNewError`); the
 * result is checked against the action's checkpoint schema.
 */
export function resumeFrom(prepared: PreparedRun, checkpoint: unknown, version?: number): PreparedRun {
  const { connector, action, input, connection, environment, needsApproval: approval } = prepared;
  const resumed = checkpointOf(connector, action, checkpoint, version);
  const migrated = version !== undefined && resumed !== undefined && version < (prepared.checkpointVersion ?? 1);
  return new Prepared(connector, action, input, connection, environment, resumed, approval, migrated);
}
