import { type Clock, systemClock } from './clock.js';
import { ConflictError, InvalidInputError, type InputIssue, NotFoundError } from './errors.js';
import { excerpt } from './excerpt.js';
import type { IdempotencyDecision, IdempotencyRecord, IdempotencyReport, IdempotencyStore } from './stores.js';

/**
 * An operator settles an idempotency key whose run was left `running` (its process died)
 * or `uncertain` (its request may have reached the provider), once the provider showed
 * what happened. The decision, who made it, when, why and what the record was before, is
 * kept with the key.
 */

/**
 * How long a run must have been `running` before it may be settled without `force`: one
 * hour. A store does not know the action's time limit, and a run that still goes on would
 * settle the key after the operator did.
 */
export const DEFAULT_SETTLE_MIN_AGE_MS = 60 * 60 * 1000;

export interface SettleKeyOptions {
  /** `succeeded`: a repeat returns `result`; `failed`: the key is released and a repeat runs again. */
  as: 'succeeded' | 'failed';
  /** Who decides. */
  by: string;
  /** Why: what the provider showed. */
  reason: string;
  /** With `succeeded`: what a repeat returns (the provider's answer as the action would give it); default null. */
  result?: unknown;
  /** Settle a `running` key however recently it started: the operator knows its process stopped. */
  force?: boolean;
  /** A `running` key younger than this is refused without `force`; default `DEFAULT_SETTLE_MIN_AGE_MS`. */
  minAgeMs?: number;
  /** The time the run's age is measured against and the decision is stamped with; default the system clock. */
  clock?: Clock;
}

/** Why a key was not settled: it already `succeeded`, its run started too `recent`ly, or its record `changed` meanwhile. */
export type SettleRefusal = 'succeeded' | 'recent' | 'changed';

/** The key's record does not allow this decision; nothing changed. */
export class IdempotencySettleRefusedError extends ConflictError {
  readonly refusal: SettleRefusal;
  /** The record found, when there is one. */
  readonly record: IdempotencyRecord | undefined;

  constructor(message: string, refusal: SettleRefusal, record: IdempotencyRecord | undefined) {
    super(message, {
      state: { succeeded: 'idempotency_settled', recent: 'idempotency_in_progress', changed: 'idempotency_changed' }[
        refusal
      ],
    });
    this.refusal = refusal;
    this.record = record;
  }
}

/** `1 h 5 min`, `15 min`, `42 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

function checkOptions(options: SettleKeyOptions): InputIssue[] {
  const issues: InputIssue[] = [];
  if (options.as !== 'succeeded' && options.as !== 'failed')
    issues.push({ path: 'as', message: `must be succeeded or failed, not ${JSON.stringify(options.as)}` });
  if (typeof options.by !== 'string' || options.by.trim() === '')
    issues.push({ path: 'by', message: 'required: who decides' });
  if (typeof options.reason !== 'string' || options.reason.trim() === '')
    issues.push({ path: 'reason', message: 'required: why, e.g. what the provider showed' });
  if (options.as === 'failed' && options.result !== undefined)
    issues.push({ path: 'result', message: 'only a succeeded run has a result' });
  if (options.minAgeMs !== undefined && !(Number.isFinite(options.minAgeMs) && options.minAgeMs >= 0))
    issues.push({ path: 'minAgeMs', message: 'must be a number of milliseconds, 0 or more' });
  return issues;
}

/**
 * Settles a key left `running` or `uncertain` and returns what the store keeps under it
 * afterwards. Refused (`IdempotencySettleRefusedError`, nothing changes) when the key already
 * succeeded, when its run started less than `minAgeMs` ago and `force` is not set, or when
 * its record changed while the decision was being made; `NotFoundError`
 * (`idempotency_key_unknown`) when nothing is kept under the key.
 */
export async function settleIdempotencyKey(
  store: IdempotencyStore,
  key: string,
  options: SettleKeyOptions,
): Promise<IdempotencyReport> {
  const issues = checkOptions(options);
  const named = `idempotency key ${JSON.stringify(excerpt(key))}`;
  if (issues.length > 0) throw new InvalidInputError(`settling ${named}`, issues);
  const now = new Date((options.clock ?? systemClock).now());
  const { record } = await store.inspect(key);
  if (!record)
    throw new NotFoundError(`nothing is kept under ${named}: there is nothing to settle`, {
      code: 'idempotency_key_unknown',
    });
  if (record.state === 'succeeded') {
    const by = record.decision ? ` (settled by ${excerpt(record.decision.by)})` : '';
    throw new IdempotencySettleRefusedError(
      `the run under ${named} succeeded at ${record.finishedAt}${by}; a repeat returns its result, there is nothing to settle`,
      'succeeded',
      record,
    );
  }
  if (record.state === 'running' && options.force !== true) {
    const minAge = options.minAgeMs ?? DEFAULT_SETTLE_MIN_AGE_MS;
    const age = now.getTime() - Date.parse(record.startedAt);
    if (!(age >= minAge)) {
      const ago = Number.isNaN(age) ? '' : `, ${formatDuration(age)} ago`;
      throw new IdempotencySettleRefusedError(
        `the run under ${named} started at ${record.startedAt}${ago}, less than ${formatDuration(minAge)}: its process may still be running and would settle the key itself. Settle it only once sure that process stopped (force), or later`,
        'recent',
        record,
      );
    }
  }
  const decision: IdempotencyDecision = {
    as: options.as,
    by: options.by.trim(),
    reason: options.reason.trim(),
    at: now.toISOString(),
    before: record,
  };
  const outcome = await store.decide(key, decision, options.as === 'succeeded' ? (options.result ?? null) : undefined);
  if (!outcome.applied) {
    throw new IdempotencySettleRefusedError(
      `the record under ${named} changed while it was being settled (it is now ${outcome.record?.state ?? 'free'}); look at it again`,
      'changed',
      outcome.record,
    );
  }
  return store.inspect(key);
}
