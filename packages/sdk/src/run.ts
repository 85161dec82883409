import type { z } from 'zod';
import { type ResolvedConnection, resolveConnection } from './connection.js';
import type { ActionContext, PagesStart, ProgressEvent, ProgressUpdate, SourceContext } from './context.js';
import {
  type Action,
  type DestinationAction,
  type Environment,
  type Page,
  isImplemented,
  needsApproval,
} from './definition/action.js';
import { checkCredential, credentialSecrets } from './credentials.js';
import { appliedAuth, signsEachRequest } from './http/auth.js';
import { connectionTokens, tokenSubject } from './auth/lifecycles.js';
import type { ClientSettings } from './http/settings.js';
import type { Connector } from './definition/connector.js';
import { type ApprovalDecision, checkApproval } from './approval.js';
import { type Clock, systemClock } from './clock.js';
import { type ApprovalBinding, approvalDigest } from './digest.js';
import { CancelledError, ConnectorError, InvalidInputError, SchemaMismatchError } from './errors.js';
import { NOT_IN_HEADER } from './http/headers.js';
import { createHttpClient, DEFAULT_RETRY, type HttpRequest, NEVER } from './http/client.js';
import { declaredPages } from './paginate/incremental.js';
import { checkpointDeclaration, migrateCheckpoint } from './checkpoint.js';
import { partsOf } from './http/transport.js';
import { createLogger, stderrSink } from './log.js';
import { excerpt } from './excerpt.js';
import { describeJsonType, type JsonPath, jsonProblem, MAX_JSON_DEPTH } from './json.js';
import { Redactor } from './secrets.js';
import type { RunOptions, RunSettings } from './run-options.js';
import { boundedIssues, zodIssues } from './validation.js';

/**
 * The one way an action runs, for every caller (the executor, and through it
 * the CLI, the testing kit and the demo): `prepareRun` validates
 * everything before anything is sent, once; `passGate` is the one approval
 * gate; `runPrepared` runs the prepared run, validates what comes back, and
 * yields pages. A destination yields one page holding its result.
 * `runAction` is the three in a row.
 */

// What a run is given; the executor, the connection check and the runners take the types from here too.
export type { RunOptions, RunSettings };

/**
 * What the executor knows of a prepared run, wherever the action's code runs (in this process,
 * or in a plugin's own process): enough for the gate, the idempotency claim and the checkpoint.
 */
export interface PreparedAction {
  connector: { key: string; version: string };
  action: Pick<Action, 'key' | 'direction' | 'retry' | 'billable'> & Pick<DestinationAction, 'idempotencyHeader'>;
  /** The validated input, defaults applied: exactly what the action receives. */
  input: unknown;
  connection: { id: string };
  environment: Environment;
  checkpoint: unknown;
  /** The version of the action's checkpoint, under which the executor stores it; 1 when left out. */
  readonly checkpointVersion?: number;
  /** The digest of exactly this run. */
  readonly binding: ApprovalBinding;
  needsApproval: boolean;
}

export interface PreparedRun extends PreparedAction {
  connector: Connector;
  action: Action;
  connection: ResolvedConnection;
}

export class UnknownActionError extends ConnectorError {
  constructor(connector: Connector, key: string) {
    super(
      `connector '${connector.key}' has no action '${excerpt(key)}'; it has ${connector.actions.map((action) => action.key).join(', ')}`,
      { code: 'unknown_action', retryable: false, platformStatus: 404 },
    );
  }
}

export class NotImplementedError extends ConnectorError {
  constructor(connector: Connector, action: Action) {
    super(`connector '${connector.key}': action '${action.key}' is declared but not implemented yet`, {
      code: 'not_implemented',
      retryable: false,
      platformStatus: 501,
    });
  }
}

function parseOrThrow<S extends z.ZodType>(
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

/**
 * A caller's value checked before zod or anything else walks it: plain JSON data (no NaN,
 * bigint, function, symbol, Date, Map, class instance, cycle or throwing getter), nested at
 * most `MAX_JSON_DEPTH` levels, and for an input an object at its root.
 */
function checkJson(value: unknown, subject: string, prefix: string | undefined, object: boolean): void {
  // An object literal is the common case; anything else is described, which costs a string.
  const literal = value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
  if (object && !literal && describeJsonType(value) !== 'an object') {
    throw new InvalidInputError(subject, [
      { path: prefix ?? '', message: `must be a JSON object, not ${describeJsonType(value)}` },
    ]);
  }
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem)
    throw new InvalidInputError(
      subject,
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
  const connection = resolveConnection(connector, options.connection);
  const subject = `${connector.key} ${action.key}: input`;
  const raw = options.input === undefined ? {} : options.input;
  checkJson(raw, subject, undefined, true);
  const input = parseOrThrow(action.input, raw, (error) => new InvalidInputError(subject, zodIssues(error)));
  const issues = action.check?.(input, { environment }) ?? [];
  if (issues.length > 0) throw new InvalidInputError(subject, boundedIssues(issues));
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

/**
 * The prepared runs of other runners (a plugin's) that passed the gate; only `passGate` adds to it.
 * This module's own carry the mark in a private field: a weak set of every run costs the garbage collector.
 */
const passed = new WeakSet<PreparedAction>();

/** True when the gate let this prepared run through: a runner that runs actions elsewhere checks it before it hands anything on. */
export function passedGate(prepared: PreparedAction): boolean {
  return prepared instanceof Prepared ? hasPassed(prepared) : passed.has(prepared);
}

function markPassed(prepared: PreparedAction): void {
  if (prepared instanceof Prepared) setPassed(prepared);
  else passed.add(prepared);
}

// Set in Prepared's static block: the only code that reaches its private mark.
let setPassed: (prepared: Prepared) => void;
let hasPassed: (prepared: Prepared) => boolean;

class Prepared implements PreparedRun {
  private digest: ApprovalBinding | undefined;
  /** Set only by `passGate`: a private field, which no code outside this module can reach. */
  #passed = false;

  static {
    setPassed = (prepared) => {
      prepared.#passed = true;
    };
    hasPassed = (prepared) => prepared.#passed;
  }

  constructor(
    readonly connector: Connector,
    readonly action: Action,
    readonly input: unknown,
    readonly connection: ResolvedConnection,
    readonly environment: Environment,
    readonly checkpoint: unknown,
    readonly needsApproval: boolean,
    /** The checkpoint was migrated from an older version: the first page carries it when it moves none. */
    readonly migrated = false,
  ) {}

  get checkpointVersion(): number {
    return this.action.direction === 'source' ? checkpointDeclaration(this.action.incremental).version : 1;
  }

  // Hashing the canonical input costs; only runs that involve an approval need it.
  get binding(): ApprovalBinding {
    this.digest ??= approvalDigest({
      connector: { key: this.connector.key, version: this.connector.version },
      action: this.action.key,
      connectionId: this.connection.id,
      environment: this.environment,
      input: this.input,
    });
    return this.digest;
  }
}

/** A checkpoint of the declared version, or of `version`, migrated to the declared one. */
function checkpointOf(connector: Connector, action: Action, checkpoint: unknown, version?: number): unknown {
  if (action.direction !== 'source' || checkpoint === undefined) return checkpoint;
  const subject = `${connector.key} ${action.key}: checkpoint`;
  checkJson(checkpoint, subject, 'checkpoint', false);
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

/**
 * The approval gate, the only one: a run that needs an approval here goes on
 * only with a decision, by someone other than the requester, that quotes the
 * digest of exactly this run and has not expired (`checkApproval`). A run that
 * needs none passes as it is. `now` is the time the expiry is checked against (ms since the epoch, a `Clock`'s `now()`).
 */
export function passGate<P extends PreparedAction>(
  prepared: P,
  approval: ApprovalDecision | undefined,
  now: number = systemClock.now(),
): P {
  if (prepared.needsApproval) {
    checkApproval(approval, {
      subject: `${prepared.connector.key} ${prepared.action.key} in ${prepared.environment}`,
      binding: prepared.binding,
      now,
    });
  }
  markPassed(prepared);
  return prepared;
}

/** Runs an action: prepares it, passes the gate with `options.approval`, and yields its pages. */
export async function* runAction(connector: Connector, actionKey: string, options: RunOptions): AsyncGenerator<Page> {
  yield* gatedRun(connector, actionKey, options);
}

/** `runAction` without its own generator around `runPrepared`'s: for the callers that consume it at once. */
function gatedRun(connector: Connector, actionKey: string, options: RunOptions): AsyncGenerator<Page> {
  const prepared = prepareRun(connector, actionKey, options);
  return runPrepared(passGate(prepared, options.approval, systemClock.now()), options);
}

/** How many credentials' redactors are kept for the runs that come next. */
const REDACTORS_KEPT = 64;
const redactors = new Map<string, Redactor>();

/**
 * The redactor of a run with these credential parts and these further secrets. Runs with only a
 * credential share one per credential (nothing adds to a run's redactor once it starts), so a
 * run with a known credential builds none. A signer's run adds each signature: its own.
 */
function redactorFor(parts: readonly string[], secrets: readonly string[] | undefined, shared: boolean): Redactor {
  // One part is the common case; several are keyed so that no list can pass for another.
  const key = parts.length === 1 ? parts[0]! : `\u0000${JSON.stringify(parts)}`;
  let redactor = !shared || (secrets && secrets.length > 0) ? undefined : redactors.get(key);
  if (redactor) return redactor;
  redactor = new Redactor(secrets);
  for (const part of parts) redactor.add(part);
  if (!shared || (secrets && secrets.length > 0)) return redactor;
  if (redactors.size >= REDACTORS_KEPT) redactors.delete(redactors.keys().next().value!);
  redactors.set(key, redactor);
  return redactor;
}

/** The longest idempotency key a run takes: what providers commonly accept. */
const MAX_IDEMPOTENCY_KEY = 255;

/** A run's idempotency key, checked before anything is sent: it may travel in a header. */
function checkedKey(connector: Connector, action: Action, key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key === '' || key.length > MAX_IDEMPOTENCY_KEY || NOT_IN_HEADER.test(key))
    throw new InvalidInputError(`${connector.key} ${action.key}`, [
      {
        path: 'idempotencyKey',
        message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters an HTTP header can carry; nothing was sent`,
      },
    ]);
  return key;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/** Runs a prepared run that passed the gate and yields its pages; for a destination, one page with the result. */
export async function* runPrepared(prepared: PreparedRun, options: RunSettings): AsyncGenerator<Page> {
  const { connector, action, connection } = prepared;
  if (!(prepared instanceof Prepared) || !hasPassed(prepared))
    throw new TypeError(
      `${connector.key} ${action.key}: runPrepared runs only a prepared run that passed the approval gate (passGate)`,
    );
  if (!isImplemented(action)) throw new NotImplementedError(connector, action);

  const answered = options.credential?.();
  // A resolver that answers at once is not awaited: a run's setup takes no extra turn for it.
  const resolved = isPromiseLike(answered) ? await answered : answered;
  const checked = checkCredential(connector.key, connection.scheme, resolved);
  const redactor = redactorFor(credentialSecrets(resolved), options.secrets, !signsEachRequest(connection.scheme));

  const idempotencyKey =
    action.direction === 'destination' ? checkedKey(connector, action, options.idempotencyKey) : undefined;
  const signal = options.signal ?? NEVER;
  const clock = options.clock ?? systemClock;
  const log = createLogger(
    options.log ?? stderrSink,
    redactor,
    { connector: connector.key, action: action.key },
    options.logLevel ?? (options.log ? 'info' : 'warn'),
    clock,
  );
  const transport = partsOf(options.transport);
  const settings: ClientSettings = {
    connector,
    action,
    connectionId: connection.id,
    environment: prepared.environment,
    baseUrl: connection.baseUrl,
    auth: undefined,
    redactor,
    transport,
    signal,
    log,
    retry: options.retry ? { ...DEFAULT_RETRY, ...options.retry } : DEFAULT_RETRY,
    ...(idempotencyKey !== undefined && action.direction === 'destination' && action.idempotencyHeader
      ? { idempotency: { header: action.idempotencyHeader.toLowerCase(), key: idempotencyKey } }
      : {}),
  };
  // An OAuth2 connection's tokens live as long as the transport, shared by its runs; token requests go this run's way.
  settings.auth = appliedAuth(
    `${connector.key} ${action.key}`,
    connection.scheme,
    checked,
    clock,
    options.tokens ??
      ((scheme, oauth) =>
        connectionTokens(transport, connector.key, connection.id).source({
          settings,
          scheme,
          clientId: oauth.clientId,
          clientSecret: oauth.clientSecret,
          initial: oauth.tokens,
          subject: tokenSubject(connector.key, connection.id),
        })),
  );
  const http = createHttpClient(settings);
  // A source's context carries its checkpoint; one object either way.
  const context: ActionContext & Partial<Pick<SourceContext, 'checkpoint' | 'pages'>> = {
    http,
    signal,
    log,
    environment: prepared.environment,
    connection: { id: connection.id, settings: connection.settings },
    progress: (update) => options.onProgress?.(progressEvent(update, redactor, connector, action, clock)),
    idempotencyKey,
    ...(action.direction === 'source'
      ? {
          checkpoint: prepared.checkpoint,
          pages: <R>(request: HttpRequest, start?: PagesStart) =>
            declaredPages(
              http,
              log,
              `${connector.key} ${action.key}`,
              action,
              prepared.checkpoint,
              request,
              start,
            ) as AsyncIterable<Page<R>>,
        }
      : {}),
  };

  // A provider that echoes the credential must not pass it on into the flow's data.
  // One walk over the page finds an echoed secret; only a page that holds one is copied record by record.
  const withoutSecrets = (records: unknown[]) =>
    redactor.containsSecretIn(records) ? records.map((record) => redactor.redactValues(record)) : records;
  // Every record goes on as the entity schema's output: zod's, defaults applied and unknown keys as the schema says.
  const validRecords = (page: unknown[]) => {
    const records = withoutSecrets(page);
    const valid: unknown[] = new Array(records.length);
    for (let index = 0; index < records.length; index += 1) {
      const result = action.entity.safeParse(records[index]);
      if (!result.success)
        throw new SchemaMismatchError(
          `${connector.key} ${action.key}`,
          zodIssues(result.error, action.direction === 'source' ? `records.${index}` : undefined),
          { requestId: http.lastRequestId },
        );
      valid[index] = result.data;
    }
    return valid;
  };

  try {
    if (action.direction === 'destination') {
      const result = await action.write!(context, prepared.input);
      yield { records: validRecords([result]) };
      return;
    }
    const checkpointSchema = checkpointDeclaration(action.incremental).schema;
    // A migrated checkpoint is stored as the new version once the first page is acknowledged, whether or not that page moves it.
    let migrated = prepared.migrated ? prepared.checkpoint : undefined;
    for await (const page of action.read!(context as SourceContext, prepared.input)) {
      signal.throwIfAborted();
      if (checkpointSchema && page.checkpoint !== undefined) {
        parseOrThrow(
          checkpointSchema,
          page.checkpoint,
          (error) =>
            new SchemaMismatchError(`${connector.key} ${action.key} (checkpoint)`, zodIssues(error, 'checkpoint'), {
              requestId: http.lastRequestId,
            }),
        );
      }
      const checkpoint = page.checkpoint ?? migrated;
      migrated = undefined;
      yield checkpoint === undefined
        ? { records: validRecords(page.records) }
        : { records: validRecords(page.records), checkpoint };
    }
  } catch (error) {
    throw safeError(error, redactor, connector, action, signal);
  }
}

/**
 * A progress update as the caller gets it: an action's label may quote what the provider
 * said, so every string in it passes the redactor, and the label is cut to a short excerpt.
 */
function progressEvent(
  update: ProgressUpdate,
  redactor: Redactor,
  connector: Connector,
  action: Action,
  clock: Clock,
): ProgressEvent {
  const safe = redactor.redact({ ...update }) as ProgressUpdate;
  if (typeof safe.label === 'string') safe.label = excerpt(safe.label);
  return { ...safe, connector: connector.key, action: action.key, time: new Date(clock.now()).toISOString() };
}

/** The longest message an error that escapes a run carries: one made of short excerpts fits; one a connector built from a whole answer does not. */
const MAX_ERROR_MESSAGE = 2000;

/** Whatever escapes a run is a ConnectorError with no secret in it, and no whole provider answer. */
function safeError(
  error: unknown,
  redactor: Redactor,
  connector: Connector,
  action: Action,
  signal: AbortSignal,
): ConnectorError {
  if (error instanceof ConnectorError) {
    error.message = excerpt(redactor.redactString(error.message), MAX_ERROR_MESSAGE);
    return error;
  }
  if (signal.aborted) {
    return new CancelledError(`${connector.key} ${action.key}: the run was cancelled`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectorError(`${connector.key} ${action.key}: ${excerpt(redactor.redactString(message))}`, {
    code: 'connector_failed',
    retryable: false,
    platformStatus: 500,
  });
}

/** Runs a destination and returns its result. */
export async function writeAction(connector: Connector, actionKey: string, options: RunOptions): Promise<unknown> {
  for await (const page of gatedRun(connector, actionKey, options)) return page.records[0];
  return undefined;
}

/** Runs a source to the end and returns every record with the last checkpoint. */
export async function readAll(
  connector: Connector,
  actionKey: string,
  options: RunOptions,
): Promise<{ records: unknown[]; checkpoint: unknown; pages: number }> {
  const records: unknown[] = [];
  let checkpoint: unknown = options.checkpoint;
  let pages = 0;
  for await (const page of gatedRun(connector, actionKey, options)) {
    records.push(...page.records);
    if (page.checkpoint !== undefined) checkpoint = page.checkpoint;
    pages += 1;
  }
  return { records, checkpoint, pages };
}
