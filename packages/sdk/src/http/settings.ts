import type { Action, Environment } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import type { AppliedAuth } from './auth.js';
import type { Answer } from './stages/stage.js';
import type { TransportParts } from './transport.js';

/** What one run's `ctx.http` is made from; every stage of its pipeline reads it. */
export interface ClientSettings {
  connector: Connector;
  action: Action;
  connectionId: string;
  /** The run's environment: the network policy it connects under. */
  environment: Environment;
  baseUrl: string;
  /** What the credential stage adds to each hop to the provider, resolved once per run. */
  auth: AppliedAuth | undefined;
  redactor: Redactor;
  /** Where requests go, and the clock every wait of the pipeline reads (`transport.clock`). */
  transport: TransportParts;
  signal: AbortSignal;
  log: Logger;
  retry: RetrySettings;
  /**
   * A destination whose provider deduplicates on an idempotency key, run with one: the header (lower
   * case) and the key every write request carries (`carriesKey`).
   */
  idempotency?: { header: string; key: string };
}

/** A run's settings as its pipeline takes them: `heard` is told of every answer (the client keeps the latest request id). */
export interface PipelineSettings extends ClientSettings {
  heard(answer: Answer): void;
}

/** How a run retries a read or a safe write: the number of retries and the bounds of the backoff (defaults 4, 300 ms, 15 s). */
export interface RetrySettings {
  /** Retries after the first attempt. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { retries: 4, minTimeoutMs: 300, maxTimeoutMs: 15_000 };
export const DEFAULT_TIMEOUT_MS = 30_000;
// Long enough to wait out a per-minute window, short enough not to hold a worker.
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 90;

/** The longest wait (a pause, a window, a Retry-After) the action accepts before failing at once. */
export function maxWaitMsOf(action: Action): number {
  return (action.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS) * 1000;
}

export function timeoutMsOf(action: Action): number {
  return action.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/** The signal of a run nobody can cancel: nothing listens to it. */
export const NEVER: AbortSignal = new AbortController().signal;

/** Methods that never change anything (RFC 9110): their requests carry no idempotency key. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a request of this method is a write, which carries the run's idempotency key. */
export function isWriteMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}
