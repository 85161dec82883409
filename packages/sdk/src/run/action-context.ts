import type { Clock } from '../clock.js';
import type { ActionContext, PagesStart, ProgressEvent, ProgressUpdate, SourceContext } from '../context.js';
import type { Page } from '../definition/action.js';
import { excerpt } from '../excerpt.js';
import type { HttpClient, HttpRequest } from '../http/client.js';
import type { Logger } from '../log.js';
import { declaredPages } from '../paginate/incremental.js';
import type { Redactor } from '../secrets.js';
import type { PreparedRun } from './prepared.js';

/** A run's `ctx`, a source's with its checkpoint and `pages`: one object either way. */
export type RunContext = ActionContext & Partial<Pick<SourceContext, 'checkpoint' | 'pages'>>;

/** What a run's `ctx` is made of. */
export interface ContextParts {
  prepared: PreparedRun;
  http: HttpClient;
  log: Logger;
  signal: AbortSignal;
  redactor: Redactor;
  clock: Clock;
  idempotencyKey: string | undefined;
  onProgress: ((event: ProgressEvent) => void) | undefined;
}

/** The `ctx` an action's code gets: what it may use, never the credential. */
export function actionContext(parts: ContextParts): RunContext {
  const { prepared, http, log, signal, redactor, clock, onProgress } = parts;
  const { connector, action, connection } = prepared;
  // One object either way, built in one go: a spread of a source's part would cost a second.
  const context: RunContext = {
    http,
    signal,
    log,
    environment: prepared.environment,
    connection: { id: connection.id, settings: connection.settings },
    progress: (update) => onProgress?.(progressEvent(update, redactor, connector.key, action.key, clock)),
    idempotencyKey: parts.idempotencyKey,
  };
  if (action.direction !== 'source') return context;
  context.checkpoint = prepared.checkpoint;
  context.pages = <R>(request: HttpRequest, start?: PagesStart) =>
    declaredPages(
      http,
      log,
      `${connector.key} ${action.key}`,
      action,
      prepared.checkpoint,
      request,
      start,
    ) as AsyncIterable<Page<R>>;
  return context;
}

/**
 * A progress update as the caller gets it: an action's label may quote what the provider
 * said, so every string in it passes the redactor, and the label is cut to a short excerpt.
 */
function progressEvent(
  update: ProgressUpdate,
  redactor: Redactor,
  connector: string,
  action: string,
  clock: Clock,
): ProgressEvent {
  const safe = redactor.redact({ ...update }) as ProgressUpdate;
  if (typeof safe.label === 'string') safe.label = excerpt(safe.label);
  return { ...safe, connector, action, time: new Date(clock.now()).toISOString() };
}
