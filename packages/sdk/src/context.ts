import type { Environment } from './definition/action.js';
import type { HttpClient } from './http/client.js';
import type { Logger } from './log.js';

/** What an action's code gets to work with. Credentials are not in it: the HTTP pipeline adds them. */

export interface ProgressUpdate {
  /** What is going on, e.g. `Importing media`. */
  label?: string;
  percent?: number;
  done?: number;
  total?: number;
}

export interface ProgressEvent extends ProgressUpdate {
  connector: string;
  action: string;
  time: string;
}

export interface ActionContext {
  http: HttpClient;
  /** Aborts when the caller cancels the run; pass it to anything that waits. */
  signal: AbortSignal;
  log: Logger;
  environment: Environment;
  connection: { id: string; settings: Readonly<Record<string, unknown>> };
  /** Reports progress of a long job to the caller (a bar in the CLI, events in the runtime). */
  progress(update: ProgressUpdate): void;
}

export interface SourceContext<C = unknown> extends ActionContext {
  /** Where the last committed run stopped; undefined on a first run. */
  checkpoint: C | undefined;
}
