import { createHash } from 'node:crypto';
import type { ApprovalDecision } from './approval.js';
import { type Clock, systemClock } from './clock.js';
import { type ConnectionInput, checkConnectionSettings } from './connection.js';
import type { ConnectionCredential } from './credentials.js';
import type { ProgressEvent } from './context.js';
import { type Environment, type Page, retryPolicy } from './definition/action.js';
import type { Connector } from './definition/connector.js';
import type { OptionsPage } from './definition/options.js';
import { checkedOptionsPage, OPTIONS_RETRY } from './options.js';
import { type ConnectorRunner, type LocalRunner, localRunner } from './runner.js';
import { checkConnection, type LiveCheck } from './check.js';
import { canonicalJson } from './digest.js';
import { checkpointFromStore, checkpointToStore } from './checkpoint.js';
import {
  CancelledError,
  CheckpointTooNewError,
  ConflictError,
  ConnectionConfigError,
  ConnectorError,
} from './errors.js';
import type { RetrySettings } from './http/client.js';
import type { Transport } from './http/transport.js';
import type { LogLevel, LogSink } from './log.js';
import { passGate, type PreparedAction, type RunSettings } from './run.js';
import { type IdempotencyRecord, memoryStore, type RunningRecord, type Stores } from './stores.js';

/**
 * Runs actions for a host: resolves the connection and the credential through the host's
 * resolvers (rule 10 enforced on the settings), validates the input, enforces approvals
 * (rule 9, the digest of exactly what runs), returns the first result again for a repeated
 * idempotency key without calling the provider, and commits a source's checkpoint only
 * after the host acknowledged the page (a stored checkpoint of an older version is migrated
 * and stored as the action's version then; one of a newer version is refused).
 */

/**
 * A loaded plugin, as far as the executor cares: the package it came from, and its connector
 * imported into this process or a runner for it (an isolated plugin runs in a process of its own).
 */
export type PluginConnector = { package: string } & ({ connector: Connector } | { runner: ConnectorRunner });

/** A connection as the host's resolver gives it: non-secret settings only. */
export interface HostConnection {
  id: string;
  /** Overrides the connector's default base URL. */
  baseUrl?: string;
  /** Non-secret settings; secret-like keys are refused (rule 10). */
  settings?: Record<string, unknown>;
  /** When set, the connection may run only in this environment. */
  environment?: Environment;
}

export interface ExecutorOptions {
  /** The connectors the executor runs, by key (a map, or a list). */
  connectors?: ReadonlyMap<string, Connector> | readonly Connector[];
  /** Loaded plugins (`@plugboard/runtime`'s `loadPlugins` result, or its `loaded` list), added to `connectors`. */
  plugins?: { loaded: readonly PluginConnector[] } | readonly PluginConnector[];
  resolveConnection(connectionId: string): HostConnection | Promise<HostConnection>;
  /** The connection's credential from the host's vault, in its scheme's shape (a string for bearer and API keys); never stored in settings. */
  resolveCredential(connectionId: string): ConnectionCredential | undefined | Promise<ConnectionCredential | undefined>;
  /** Default: both in memory. */
  stores?: Partial<Stores>;
  /** The time approvals are checked against and records and events are stamped with; default the system clock. */
  clock?: Clock;
  /** The pool and rate budgets; default: the SDK's process-wide one. */
  transport?: Transport;
  /** Structured log entries of the runs, already redacted. */
  log?: LogSink;
  /** The least level that reaches `log`; lower entries are never built. Default `info`. */
  logLevel?: LogLevel;
  /** Retry settings for reads and safe writes; default: the SDK's. */
  retry?: Partial<RetrySettings>;
  /** Further secret values to keep out of logs, errors and records (besides each run's credential). */
  secrets?: readonly string[];
}

export interface ExecuteRequest {
  connectorKey: string;
  action: string;
  connectionId: string;
  /** Default `sandbox`. */
  environment?: Environment;
  input?: unknown;
  /** Required when the action needs approval here. */
  approval?: ApprovalDecision;
  /**
   * Destinations: a repeated key returns the first result, `replayed` true, with no second provider
   * call. The action gets a key derived from it (`ctx.idempotencyKey`), which the kit sends in the
   * action's `idempotencyHeader` where it declares one.
   */
  idempotencyKey?: string;
  /** Sources: the name the checkpoint is kept under; default from connector, action, connection, environment and input. */
  stream?: string;
  signal?: AbortSignal;
  onProgress?: (event: ExecutionEvent) => void;
  /**
   * Sources: receives each page; the promise resolving is the host's acknowledgement, after
   * which the page's checkpoint is committed. A rejection stops the run with the checkpoint
   * of the previous page.
   */
  onPage?: (page: Page, info: { index: number }) => void | Promise<void>;
}

export interface DestinationOutcome {
  direction: 'destination';
  result: unknown;
  /** True when the result is that of the first run with the same idempotency key. */
  replayed: boolean;
  /** The approval digest, when the run needed an approval or had an idempotency key. */
  digest?: string;
}

export interface SourceOutcome {
  direction: 'source';
  /** Sources are never replayed: idempotency keys apply to destinations. */
  replayed: false;
  pages: number;
  records: number;
  /** The last committed checkpoint (the starting one when no page brought one). */
  checkpoint: unknown;
  stream: string;
  /** The approval digest, when the run needed an approval. */
  digest?: string;
}

export type ExecutionOutcome = DestinationOutcome | SourceOutcome;

export interface EventBase {
  connector: string;
  action: string;
  time: string;
}

export type ExecutionEvent =
  | (EventBase & { type: 'started'; environment: Environment; digest?: string; stream?: string; checkpoint?: unknown })
  | (EventBase & { type: 'replayed'; idempotencyKey: string })
  | ({ type: 'progress' } & ProgressEvent)
  | (EventBase & {
      type: 'page';
      index: number;
      records: number;
      totalRecords: number;
      committed: boolean;
      checkpoint?: unknown;
    })
  | (EventBase & { type: 'finished'; pages?: number; records?: number });

export interface PreparedExecution {
  /** Where the connector's actions are checked and run. */
  runner: ConnectorRunner;
  /** Validated once; the run is handed this, never prepared again. */
  prepared: PreparedAction;
  connection: HostConnection;
  /** The digest an approver reviews (computed when read). */
  readonly digest: string;
  readonly shortDigest: string;
  needsApproval: boolean;
}

export interface Executor {
  /** The connectors it runs, by key: each one's runner. */
  readonly runners: ReadonlyMap<string, ConnectorRunner>;
  /** Checks a request and gives the digest an approver must review; runs nothing. */
  prepare(request: ExecuteRequest): Promise<PreparedExecution>;
  execute(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /**
   * Runs the connector's connection check (`checkConnection`) on a connection and its credential
   * as the host's resolvers give them for a run, and answers the platform's LiveCheck. A connector
   * that runs in a plugin's own process is not checked there yet: `not_checked`.
   */
  checkConnection(request: CheckRequest): Promise<LiveCheck>;
  /**
   * One page of an input field's options (an action's `options`), listed on a connection and its
   * credential as the host's resolvers give them, through the same pipeline as a run, wherever the
   * connector runs. Values are the field's; a secret the provider echoed in a label is redacted.
   */
  listOptions(request: OptionsRequest): Promise<OptionsPage>;
}

/** Which field's options to list, on which connection, narrowed by what a person typed. */
export interface OptionsRequest {
  connectorKey: string;
  /** The action whose input field it is. */
  action: string;
  /** The input field whose options are listed. */
  field: string;
  /** The connection listed on, as the host's resolvers give it. */
  connectionId: string;
  /** Text to narrow the options by; at most 200 characters. */
  search?: string;
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** The network policy the listing connects under; default `sandbox`. */
  environment?: Environment;
  signal?: AbortSignal;
}

/** Which connection to check, with which connector. */
export interface CheckRequest {
  connectorKey: string;
  connectionId: string;
  /** The network policy the check connects under; default `sandbox`. */
  environment?: Environment;
  signal?: AbortSignal;
}

export class UnknownConnectorError extends ConnectorError {
  constructor(key: string, known: readonly string[]) {
    super(`no connector '${key}'; the executor has ${known.length ? known.join(', ') : 'none'}`, {
      code: 'unknown_connector',
      retryable: false,
      platformStatus: 404,
    });
  }
}

/** The idempotency key was used before for something else (another digest). */
export class IdempotencyKeyReusedError extends ConflictError {
  constructor(key: string, record: IdempotencyRecord, digest: string) {
    super(
      `idempotency key ${JSON.stringify(key)} was first used for ${record.connector} ${record.action} (digest ${record.digest}); this request (digest ${digest}) asks for something else. Use a new key for a different run`,
      { state: 'idempotency_key_reused' },
    );
  }
}

/** A run under the key is still going (or its process died); or its outcome is unknown. */
export class IdempotencyUnsettledError extends ConflictError {
  readonly record: IdempotencyRecord;

  constructor(key: string, record: IdempotencyRecord) {
    const message =
      record.state === 'running'
        ? `a run with idempotency key ${JSON.stringify(key)} started at ${record.startedAt} and has not finished; if its process died, check with the provider whether it acted, then settle the key as succeeded (a repeat returns the result) or failed (a repeat runs again)`
        : record.state === 'uncertain'
          ? `the run with idempotency key ${JSON.stringify(key)} failed at ${record.finishedAt} after its request may have reached the provider (${record.error.code}: ${record.error.message}); it is not run again under this key: check with the provider${record.error.requestId ? ` (request ${record.error.requestId})` : ''}, then settle the key as succeeded or failed, or use a new key`
          : `idempotency key ${JSON.stringify(key)} is settled`;
    super(message, {
      state: record.state === 'running' ? 'idempotency_in_progress' : 'idempotency_outcome_unknown',
      retryable: record.state === 'running',
    });
    this.record = record;
  }
}

/** Codes of failures raised before any request leaves: the provider did nothing. */
const BEFORE_SENDING = new Set([
  'invalid_input',
  'invalid_connection',
  'approval_required',
  'unknown_action',
  'not_implemented',
]);

/**
 * True when the failed run certainly did not act at the provider, or acting again is safe: the
 * action is safe to repeat, or its provider deduplicates on the key its writes carried.
 */
function safeToForget(error: unknown, connectorAction: PreparedAction['action']): boolean {
  if (retryPolicy(connectorAction) === 'safe') return true;
  if (connectorAction.idempotencyHeader) return true;
  if (!(error instanceof ConnectorError)) return false;
  if (BEFORE_SENDING.has(error.code)) return true;
  // The provider answered with a refusal: it did not act.
  return error.status !== undefined && error.status >= 400 && error.status < 500;
}

/**
 * The key the provider gets for a caller's key (`ctx.idempotencyKey`): the caller's key and what
 * the run asks for, hashed. Two actions (or two inputs, after a failed run freed the key) under one
 * caller key never meet at the provider under one key, a key of any characters or length becomes a
 * header value every provider takes, and the same run repeated sends the same key.
 */
function providerKey(key: string, fingerprint: string): string {
  return `pb_${createHash('sha256').update(canonicalJson({ key, fingerprint })).digest('hex').slice(0, 40)}`;
}

function hash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

/**
 * What a request asks for, without the connector's version: a key repeated after the
 * connector was upgraded still finds its first result.
 */
function fingerprint(ready: PreparedExecution): string {
  const { action, connection, environment, input } = ready.prepared;
  return `sha256:${createHash('sha256')
    .update(
      canonicalJson({
        connector: ready.runner.key,
        action: action.key,
        connectionId: connection.id,
        environment,
        input,
      }),
    )
    .digest('hex')}`;
}

/** The default name of a source's checkpoint stream. */
export function streamKey(parts: {
  connector: string;
  action: string;
  connectionId: string;
  environment: Environment;
  input: unknown;
}): string {
  return `${parts.connector}/${parts.action}/${parts.connectionId}/${parts.environment}/${hash(parts.input)}`;
}

function runnerMap(options: ExecutorOptions): Map<string, ConnectorRunner> {
  const map = new Map<string, ConnectorRunner>();
  // The same connector (or runner) given twice is one; two different ones under one key are refused.
  const sources = new Map<string, unknown>();
  const add = (given: Connector | ConnectorRunner, from: string) => {
    const existing = sources.get(given.key);
    if (existing !== undefined && existing !== given)
      throw new TypeError(`createExecutor: two connectors have the key '${given.key}' (${from})`);
    sources.set(given.key, given);
    if (existing === undefined) map.set(given.key, 'prepare' in given ? given : localRunner(given));
  };
  const given = options.connectors;
  if (given)
    for (const connector of given instanceof Map ? given.values() : (given as readonly Connector[]))
      add(connector, 'connectors');
  const plugins = options.plugins;
  for (const plugin of plugins === undefined
    ? []
    : Array.isArray(plugins)
      ? plugins
      : (plugins as { loaded: readonly PluginConnector[] }).loaded) {
    add('runner' in plugin ? plugin.runner : plugin.connector, `plugin ${plugin.package}`);
  }
  return map;
}

/** A runner of a connector imported into this process (`localRunner`), whose definition is at hand. */
function isLocal(runner: ConnectorRunner): runner is LocalRunner {
  return 'connector' in runner && typeof (runner as LocalRunner).connector?.action === 'function';
}

function cancelled(signal: AbortSignal | undefined, subject: string): void {
  if (signal?.aborted) throw new CancelledError(`${subject}: the run was cancelled`);
}

export function createExecutor(options: ExecutorOptions): Executor {
  const runners = runnerMap(options);
  const defaults = memoryStore();
  const checkpoints = options.stores?.checkpoints ?? defaults.checkpoints;
  const idempotency = options.stores?.idempotency ?? defaults.idempotency;
  const clock = options.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();
  /** Runs of this executor by idempotency key, one after the other: a concurrent repeat waits for the first. */
  const queues = new Map<string, Promise<unknown>>();

  async function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const current = previous.then(run, run);
    const tail = current.catch(() => undefined);
    queues.set(key, tail);
    try {
      return await current;
    } finally {
      if (queues.get(key) === tail) queues.delete(key);
    }
  }

  async function resolveHostConnection(
    runner: ConnectorRunner,
    request: Pick<ExecuteRequest, 'connectionId' | 'environment'>,
  ): Promise<HostConnection> {
    const connection = await options.resolveConnection(request.connectionId);
    if (!connection || typeof connection !== 'object') {
      throw new ConnectionConfigError(`connection ${request.connectionId}: the host's resolver returned no connection`);
    }
    if (connection.id !== request.connectionId) {
      throw new ConnectionConfigError(
        `connection ${request.connectionId}: the host's resolver returned connection ${JSON.stringify(connection.id)}`,
      );
    }
    // Rule 10: secrets come only from the credential resolver, never from settings.
    try {
      checkConnectionSettings(connection.settings ?? {});
    } catch (error) {
      if (error instanceof ConnectorError) error.message = `connection ${connection.id}: ${error.message}`;
      throw error;
    }
    const environment = request.environment ?? 'sandbox';
    if (connection.environment !== undefined && connection.environment !== environment) {
      throw new ConnectionConfigError(
        `connection ${connection.id} is a ${connection.environment} connection; it cannot run ${runner.key} in ${environment}`,
      );
    }
    return connection;
  }

  function runnerOf(connectorKey: string): ConnectorRunner {
    const runner = runners.get(connectorKey);
    if (!runner) throw new UnknownConnectorError(connectorKey, [...runners.keys()]);
    return runner;
  }

  function connectionInput(connection: HostConnection): ConnectionInput {
    return {
      id: connection.id,
      ...(connection.baseUrl === undefined ? {} : { baseUrl: connection.baseUrl }),
      ...(connection.settings ? { settings: connection.settings } : {}),
    };
  }

  async function check(request: CheckRequest): Promise<LiveCheck> {
    const runner = runnerOf(request.connectorKey);
    const connection = await resolveHostConnection(runner, request);
    if (!isLocal(runner)) {
      return {
        connectionId: connection.id,
        state: 'not_checked',
        current: false,
        checkedAt: null,
        expiresAt: null,
        summary: `${runner.name} runs in a plugin's own process, where connection checks do not run yet`,
        fixHint: null,
      };
    }
    return checkConnection(runner.connector, {
      connection: connectionInput(connection),
      environment: request.environment ?? 'sandbox',
      credential: () => options.resolveCredential(connection.id),
      clock,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.secrets ? { secrets: options.secrets } : {}),
    });
  }

  async function prepare(request: ExecuteRequest): Promise<PreparedExecution> {
    const runner = runnerOf(request.connectorKey);
    const connection = await resolveHostConnection(runner, request);
    const prepared = await runner.prepare(request.action, {
      input: request.input,
      connection: connectionInput(connection),
      environment: request.environment ?? 'sandbox',
    });
    return {
      runner,
      prepared,
      connection,
      get digest() {
        return prepared.binding.digest;
      },
      get shortDigest() {
        return prepared.binding.shortDigest;
      },
      needsApproval: prepared.needsApproval,
    };
  }

  async function credentialFor(connectionId: string): Promise<ConnectionCredential> {
    const credential = await options.resolveCredential(connectionId);
    if (credential === undefined || credential === null || credential === '') {
      throw new ConnectionConfigError(`connection ${connectionId}: the host's credential resolver returned none`);
    }
    return credential;
  }

  /** The SDK's one gate, before any claim or call: the run it gives back is the one that runs. */
  function gate(request: ExecuteRequest, prepared: PreparedAction): PreparedAction {
    return passGate(prepared, request.approval, clock.now());
  }

  /** The approval digest, only where an approval is involved. */
  function digestOf(ready: PreparedExecution): { digest?: string } {
    return ready.needsApproval ? { digest: ready.digest } : {};
  }

  function baseEvent(ready: PreparedExecution): EventBase {
    return { connector: ready.runner.key, action: ready.prepared.action.key, time: now() };
  }

  function settings(
    request: Pick<ExecuteRequest, 'signal' | 'approval' | 'onProgress'>,
    credential: ConnectionCredential,
  ): RunSettings {
    return {
      credential: () => credential,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.secrets ? { secrets: options.secrets } : {}),
      // A runner in another process checks the gate's decision again there, against the host's time.
      ...(request.approval ? { approval: request.approval } : {}),
      clock,
      onProgress: (event: ProgressEvent) => request.onProgress?.({ type: 'progress', ...event }),
    };
  }

  async function writeOnce(
    request: ExecuteRequest,
    ready: PreparedExecution,
    run: PreparedAction,
    credential: ConnectionCredential,
  ): Promise<unknown> {
    const key = request.idempotencyKey;
    const keyed = key === undefined ? {} : { idempotencyKey: providerKey(key, fingerprint(ready)) };
    for await (const page of ready.runner.run(run, { ...settings(request, credential), ...keyed }))
      return page.records[0];
    return undefined;
  }

  async function destination(request: ExecuteRequest, ready: PreparedExecution): Promise<DestinationOutcome> {
    const key = request.idempotencyKey;
    const { action } = ready.prepared;
    const replay = (record: IdempotencyRecord): DestinationOutcome => {
      if (record.fingerprint !== fingerprint(ready)) throw new IdempotencyKeyReusedError(key!, record, ready.digest);
      if (record.state !== 'succeeded') throw new IdempotencyUnsettledError(key!, record);
      request.onProgress?.({ ...baseEvent(ready), type: 'replayed', idempotencyKey: key! });
      return { direction: 'destination', result: record.result, replayed: true, digest: ready.digest };
    };

    if (key !== undefined) {
      // A repeated key returns the first result: nothing runs, so no approval is needed for it.
      const record = await idempotency.get(key);
      if (record) return replay(record);
    }
    const run = gate(request, ready.prepared);
    const credential = await credentialFor(ready.connection.id);
    cancelled(request.signal, `${ready.runner.key} ${action.key}`);

    if (key === undefined) {
      request.onProgress?.({
        ...baseEvent(ready),
        type: 'started',
        environment: ready.prepared.environment,
        ...digestOf(ready),
      });
      const result = await writeOnce(request, ready, run, credential);
      request.onProgress?.({ ...baseEvent(ready), type: 'finished' });
      return { direction: 'destination', result, replayed: false, ...digestOf(ready) };
    }

    const running: RunningRecord = {
      state: 'running',
      fingerprint: fingerprint(ready),
      digest: ready.digest,
      connector: ready.runner.key,
      action: action.key,
      startedAt: now(),
    };
    const existing = await idempotency.claim(key, running);
    if (existing) return replay(existing);

    request.onProgress?.({
      ...baseEvent(ready),
      type: 'started',
      environment: ready.prepared.environment,
      digest: ready.digest,
    });
    let result: unknown;
    try {
      result = await writeOnce(request, ready, run, credential);
    } catch (error) {
      if (safeToForget(error, action)) {
        await idempotency.release(key);
      } else {
        const failure = error instanceof ConnectorError ? error : undefined;
        await idempotency.settle(key, {
          ...running,
          state: 'uncertain',
          error: {
            code: failure?.code ?? 'connector_failed',
            message: error instanceof Error ? error.message : String(error),
            ...(failure?.requestId ? { requestId: failure.requestId } : {}),
          },
          finishedAt: now(),
        });
      }
      throw error;
    }
    await idempotency.settle(key, { ...running, state: 'succeeded', result: result ?? null, finishedAt: now() });
    request.onProgress?.({ ...baseEvent(ready), type: 'finished' });
    return { direction: 'destination', result, replayed: false, digest: ready.digest };
  }

  async function source(request: ExecuteRequest, ready: PreparedExecution): Promise<SourceOutcome> {
    const { action, environment, input } = ready.prepared;
    const onPage = request.onPage;
    if (typeof onPage !== 'function') {
      throw new TypeError(
        `${ready.runner.key} ${action.key} is a source: execute() needs onPage, the host's acknowledgement of each page`,
      );
    }
    const stream =
      request.stream ??
      streamKey({
        connector: ready.runner.key,
        action: action.key,
        connectionId: ready.connection.id,
        environment,
        input,
      });
    const stored = await checkpoints.get(stream);
    const version = ready.prepared.checkpointVersion ?? 1;
    const kept = stored === undefined ? undefined : checkpointFromStore(stored);
    // A checkpoint of a newer connector is refused before the plugin sees it: never read again from the start.
    if (kept && kept.version > version)
      throw new CheckpointTooNewError(ready.runner.key, action.key, kept.version, version);
    const resumed = kept ? await ready.runner.resume(ready.prepared, kept.checkpoint, kept.version) : ready.prepared;
    const run = gate(request, resumed);
    let checkpoint = kept?.checkpoint;
    const credential = await credentialFor(ready.connection.id);
    cancelled(request.signal, `${ready.runner.key} ${action.key}`);
    request.onProgress?.({
      ...baseEvent(ready),
      type: 'started',
      environment,
      ...digestOf(ready),
      stream,
      ...(kept === undefined ? {} : { checkpoint }),
    });

    let index = 0;
    let records = 0;
    for await (const page of ready.runner.run(run, settings(request, credential))) {
      // A runner that reads ahead may hold a page read before the cancel: it is never acknowledged.
      cancelled(request.signal, `${ready.runner.key} ${action.key}`);
      // The host acknowledges the page by resolving; only then does the checkpoint move on.
      await onPage(page, { index });
      const committed = page.checkpoint !== undefined;
      if (committed) {
        // A checkpoint resumed from an older version is stored as this one from the first page on.
        await checkpoints.commit(stream, checkpointToStore(page.checkpoint, version));
        checkpoint = page.checkpoint;
      }
      records += page.records.length;
      request.onProgress?.({
        ...baseEvent(ready),
        type: 'page',
        index,
        records: page.records.length,
        totalRecords: records,
        committed,
        ...(committed ? { checkpoint: page.checkpoint } : {}),
      });
      index += 1;
    }
    request.onProgress?.({ ...baseEvent(ready), type: 'finished', pages: index, records });
    return { direction: 'source', replayed: false, pages: index, records, checkpoint, stream, ...digestOf(ready) };
  }

  async function listOptions(request: OptionsRequest): Promise<OptionsPage> {
    const subject = `${request.connectorKey} ${request.action} options for ${request.field}`;
    cancelled(request.signal, subject);
    const runner = runnerOf(request.connectorKey);
    const connection = await resolveHostConnection(runner, request);
    const prepared = await runner.prepareOptions(request.action, request.field, {
      query: {
        ...(request.search === undefined ? {} : { search: request.search }),
        ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
      },
      connection: connectionInput(connection),
      environment: request.environment ?? 'sandbox',
    });
    // A listing reads only and needs no approval: the gate lets it through as it is.
    const run = passGate(prepared, undefined, clock.now());
    const credential = await credentialFor(connection.id);
    cancelled(request.signal, subject);
    const retry = { ...options.retry, ...OPTIONS_RETRY };
    for await (const page of runner.run(run, { ...settings(request, credential), retry })) {
      const listed = page.records[0];
      // A page of this process was checked against the field's schema; a plugin's is checked again here.
      return isLocal(runner) ? (listed as OptionsPage) : checkedOptionsPage(listed, subject);
    }
    throw new ConnectorError(`${subject}: the listing returned no page`, {
      code: 'connector_failed',
      retryable: false,
      platformStatus: 500,
    });
  }

  return {
    runners,
    prepare,
    checkConnection: check,
    listOptions,
    async execute(request) {
      cancelled(request.signal, `${request.connectorKey} ${request.action}`);
      const ready = await prepare(request);
      if (ready.prepared.action.direction === 'source') return source(request, ready);
      const key = request.idempotencyKey;
      return key === undefined ? destination(request, ready) : oneAtATime(key, () => destination(request, ready));
    },
  };
}
