import type { Environment } from './definition/environment.js';
import type { Page } from './definition/page.js';
import type { HttpClient, HttpRequest } from './http/client.js';
import type { Logger } from './log.js';

/** What an action's code gets to work with. Credentials are not in it: the HTTP pipeline adds them. */

/** What an action reports with `ctx.progress(update)`: a label and how far it has come. */
export interface ProgressUpdate {
  /** What is going on, e.g. `Importing media`. */
  label?: string;
  percent?: number;
  done?: number;
  total?: number;
}

/** A progress update as `RunOptions.onProgress` receives it, with the connector, the action and the time. */
export interface ProgressEvent extends ProgressUpdate {
  connector: string;
  action: string;
  time: string;
}

/** `ctx` of an action: its HTTP client, signal, logger, environment, connection settings, progress and idempotency key. */
export interface ActionContext {
  http: HttpClient;
  /** Aborts when the caller cancels the run; pass it to anything that waits. */
  signal: AbortSignal;
  log: Logger;
  environment: Environment;
  connection: { id: string; settings: Readonly<Record<string, unknown>> };
  /** Reports progress of a long job to the caller (a bar in the CLI, events in the runtime). */
  progress(update: ProgressUpdate): void;
  /**
   * A destination's idempotency key as the provider gets it, when the run has one: derived from
   * the caller's key and what the run asks for (connector, action, connection, environment,
   * input), so one caller key used for two actions gives two keys. The kit sends it itself in the
   * action's `idempotencyHeader`; an action whose provider takes it elsewhere (a body field) puts
   * it there. Undefined for a source and for a run without a key.
   */
  idempotencyKey: string | undefined;
}

/** `ctx` of a source's `read`: the action context plus the checkpoint it resumes from and `ctx.pages` for declared paging. */
export interface SourceContext<C = unknown> extends ActionContext {
  /** Where the last committed run stopped; undefined on a first run. */
  checkpoint: C | undefined;
  /**
   * Every page of `request` read with the action's declared paginator and, for an incremental
   * source, its watermark: the provider asked for records from the checkpoint on, records the
   * last run read dropped, and each page's checkpoint set (held back to the last page when the
   * provider lists newest first). The records are checked against the entity after they leave:
   * `R` only says what they are.
   * `start`: where an incremental read starts, besides its checkpoint.
   * @example async *read(ctx, input) { yield* ctx.pages<Project>({ path: '/projects', query: { limit: input.limit } }); }
   */
  pages<R = unknown>(
    request: HttpRequest,
    start?: {
      /** The cursor value a first run (one without a checkpoint) starts from. */
      from?: string | number | undefined;
      /** The oldest cursor value the provider can list: a start older than it moves up to it. */
      notBefore?: string | number | undefined;
    },
  ): AsyncIterable<Page<R, C>>;
}

/** Where an incremental read starts (`SourceContext.pages`' `start`), as the SDK's own code names it. */
export type PagesStart = NonNullable<Parameters<SourceContext['pages']>[1]>;
