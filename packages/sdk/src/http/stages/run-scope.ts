import type { Logger } from '../../log.js';
import type { RetrySettings } from '../settings.js';
import type { Answer, Call } from './stage.js';

/**
 * What a run's calls carry for the stages above the host's (redaction, retry, classification).
 * Those are built once for a connection and an action and serve every run of it (pipeline.ts),
 * so what is the run's own rides on each of its calls, under a symbol the run's client sets: its
 * log, which of its calls may be sent again and how, and who hears every answer. The run's
 * cancel is the call's own `signal` above the timeout stage. No stage below the host's reads it.
 */
export interface RunScope {
  readonly log: Logger;
  readonly retry: RetrySettings;
  /**
   * Which of the run's calls may be sent again after a transient failure: every one
   * (`EVERY_CALL`), only those carrying the run's idempotency key in this header (lower case),
   * or none.
   */
  readonly retried: typeof EVERY_CALL | string | undefined;
  /** Told of every answer first (the client keeps the latest one's request id). */
  heard(answer: Answer): void;
}

/** Where a call carries its run's scope. */
export const RUN_SCOPE = Symbol('plugboard.runScope');

/** Every call of the run may be sent again. */
export const EVERY_CALL = Symbol('plugboard.everyCall');

/** The scope of the run that made `call`. */
export function scopeOf(call: Call): RunScope {
  return (call as Call & { [RUN_SCOPE]: RunScope })[RUN_SCOPE];
}
