import { connectionTokens, tokenSubject } from '../auth/lifecycles.js';
import { type Clock, systemClock } from '../clock.js';
import { type ConnectionCredential, checkCredential } from '../credentials.js';
import { type Action, isImplemented } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { InvalidInputError } from '../errors.js';
import type { TokenLifecycle } from '../auth/schemes/scheme-type.js';
import { appliedAuth, signsEachRequest } from '../http/auth.js';
import { createHttpClient } from '../http/client.js';
import { NOT_IN_HEADER } from '../http/headers.js';
import { retriedCalls, tokenRequestSend } from '../http/pipeline.js';
import { DEFAULT_RETRY, maxWaitMsOf, NEVER } from '../http/settings.js';
import { partsOf, type TransportParts } from '../http/transport.js';
import { createLogger, type Logger, stderrSink } from '../log.js';
import type { Redactor } from '../secrets.js';
import { actionContext } from './action-context.js';
import { ActionRun } from './action-run.js';
import { NotImplementedError } from './failure.js';
import { type Prepared, type PreparedRun, passedHere } from './prepared.js';
import { redactorFor } from './redactors.js';
import type { RunSettings } from '../run-options.js';
import { type ActionWiring, keptWiring, wire } from './wiring.js';

/**
 * A run's start: the credential resolved and checked, the connection's wiring (kept, or made
 * now), and what only this run has: its log, its cancel, its retry settings, its idempotency
 * key, its `ctx.http` over the connection's pipeline and its `ctx`. Nothing is sent. No part of
 * it captures another that is built after it.
 */
export function startRun(prepared: PreparedRun, options: RunSettings): ActionRun | Promise<ActionRun> {
  const { connector, action } = prepared;
  if (!passedHere(prepared))
    throw new TypeError(
      `${connector.key} ${action.key}: runPrepared runs only a prepared run that passed the approval gate (passGate)`,
    );
  if (!isImplemented(action)) throw new NotImplementedError(connector, action);
  const answered = options.credential?.();
  // A resolver that answers at once is not awaited: a run's setup takes no extra turn for it.
  return isPromiseLike(answered)
    ? Promise.resolve(answered).then((resolved) => started(prepared, options, resolved))
    : started(prepared, options, answered);
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

function started(prepared: Prepared, options: RunSettings, resolved: ConnectionCredential | undefined): ActionRun {
  const { connector, action, connection, environment } = prepared;
  const checked = checkCredential(connector.key, connection.scheme, resolved);
  // A signer's run adds each signature to its redactor: its own, and its wiring too.
  const shared = !signsEachRequest(connection.scheme);
  const redactor = redactorFor(resolved, options.secrets, shared);
  const idempotencyKey =
    action.direction === 'destination' ? checkedKey(connector, action, options.idempotencyKey) : undefined;
  const signal = options.signal ?? NEVER;
  const clock = options.clock ?? systemClock;
  const transport = partsOf(options.transport);
  const kept = shared ? keptWiring(transport, redactor, connector, connection, environment)?.for(action) : undefined;
  const log = runLogger(kept, options, redactor, clock, prepared);
  const wired =
    kept ??
    wire(
      { transport, connector, connection, environment, redactor },
      appliedAuth(
        `${connector.key} ${action.key}`,
        connection.scheme,
        checked,
        clock,
        options.tokens ?? transportTokens(prepared, transport, redactor, log),
      ),
      shared,
    ).for(action);
  const header = action.direction === 'destination' ? action.idempotencyHeader?.toLowerCase() : undefined;
  const idempotency = idempotencyKey !== undefined && header ? { header, key: idempotencyKey } : undefined;
  const retry = options.retry ? { ...DEFAULT_RETRY, ...options.retry } : DEFAULT_RETRY;
  const http = createHttpClient(
    wired,
    signal,
    log,
    retry,
    retriedCalls(action, retry, idempotency?.header),
    idempotency,
  );
  const { onProgress } = options;
  const context = actionContext({ prepared, http, log, signal, redactor, clock, idempotencyKey, onProgress });
  return new ActionRun(prepared, context, http, redactor, signal);
}

/** The run's log: the one its kept wiring's latest run made when this run logs alike (same sink, level and clock), else a new one. */
function runLogger(
  kept: ActionWiring | undefined,
  options: RunSettings,
  redactor: Redactor,
  clock: Clock,
  { connector, action }: Prepared,
): Logger {
  const sink = options.log ?? stderrSink;
  const level = options.logLevel ?? (options.log ? 'info' : 'warn');
  const last = kept?.logger;
  if (last && last.sink === sink && last.level === level && last.clock === clock) return last.log;
  const log = createLogger(
    sink,
    redactor,
    kept?.about ?? { connector: connector.key, action: action.key },
    level,
    clock,
  );
  if (kept) kept.logger = { sink, level, clock, log };
  return log;
}

/** An OAuth2 connection's tokens: the transport's lifecycle, shared by the connection's runs; its token requests go through the pipeline's token composition. */
function transportTokens(
  prepared: Prepared,
  transport: TransportParts,
  redactor: Redactor,
  log: Logger,
): TokenLifecycle {
  const { connector, action, connection, environment } = prepared;
  return (scheme, oauth) =>
    connectionTokens(transport, connector.key, connection.id).source({
      send: tokenRequestSend({
        transport,
        connector: connector.key,
        connectionId: connection.id,
        environment,
        redactor,
        rateLimits: connector.rateLimits,
        maxWaitMs: maxWaitMsOf(action),
      }),
      redactor,
      log,
      scheme,
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      initial: oauth.tokens,
      subject: tokenSubject(connector.key, connection.id),
    });
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
