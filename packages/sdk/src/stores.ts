import { isDeepStrictEqual } from 'node:util';

/**
 * Where the executor keeps what must outlive a run: the checkpoint of each source stream
 * and the outcome of each idempotency key. Values are JSON. In memory here (one process);
 * `@plugboard/runtime`'s `fileStore` keeps them in files that survive a crash.
 */

export interface CheckpointStore {
  /** The last committed checkpoint of a stream; undefined when none was committed. */
  get(stream: string): Promise<unknown>;
  /** Commits a stream's checkpoint. Atomic: after a crash, `get` gives the old one or the new one. */
  commit(stream: string, checkpoint: unknown): Promise<void>;
  /** Forgets a stream's checkpoint: the next run reads from the start. */
  clear(stream: string): Promise<void>;
}

/** The first run under an idempotency key started and has not finished (or its process died). */
export interface RunningRecord {
  state: 'running';
  /** What the request asked for (connector, action, connection, environment, input): a second use must match. */
  fingerprint: string;
  /** The approval digest of the first run. */
  digest: string;
  connector: string;
  action: string;
  startedAt: string;
}

/** The first run finished; a run with the same key returns this result. */
export interface SucceededRecord extends Omit<RunningRecord, 'state'> {
  state: 'succeeded';
  result: unknown;
  finishedAt: string;
  /** Present when an operator, not the run, settled the key (its run was left running or uncertain). */
  decision?: IdempotencyDecision;
}

/**
 * The first run failed after its request may have reached the provider (a timeout, a 5xx, a
 * broken connection, a cancellation in flight): whether the provider acted is not known, so
 * the key is not run again; look the request up with the provider first.
 */
export interface UncertainRecord extends Omit<RunningRecord, 'state'> {
  state: 'uncertain';
  error: { code: string; message: string; requestId?: string };
  finishedAt: string;
}

export type IdempotencyRecord = RunningRecord | SucceededRecord | UncertainRecord;

/**
 * An operator's decision on a key whose run was left `running` (its process died) or
 * `uncertain`, after looking the request up with the provider: `succeeded` keeps `result`,
 * which a repeat returns; `failed` releases the key, so a repeat runs again.
 */
export interface IdempotencyDecision {
  as: 'succeeded' | 'failed';
  /** Who decided. */
  by: string;
  /** Why: what the provider showed, a ticket. */
  reason: string;
  /** When (ISO 8601). */
  at: string;
  /** The record the decision replaced. */
  before: RunningRecord | UncertainRecord;
}

/** Everything kept under a key, for an operator. */
export interface IdempotencyReport {
  key: string;
  /** The key's record; undefined when the key is free (never used, released by a failed run or by a decision). */
  record?: IdempotencyRecord;
  /** Every decision made on the key, oldest first; kept when the key runs again. */
  decisions: IdempotencyDecision[];
}

/** What `decide` did: applied, or not because the key's record is no longer `decision.before`. */
export type DecideOutcome =
  | { applied: true; record?: SucceededRecord }
  | { applied: false; record?: IdempotencyRecord };

export interface IdempotencyStore {
  get(key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Claims a key for a run that is about to start. Atomic: of two claims of one key, one
   * wins. Returns undefined when the claim won, else the record already there.
   */
  claim(key: string, record: RunningRecord): Promise<IdempotencyRecord | undefined>;
  /** Replaces the key's record with the run's outcome. */
  settle(key: string, record: SucceededRecord | UncertainRecord): Promise<void>;
  /** Forgets a key: its run failed before the provider acted, so the key may run again. */
  release(key: string): Promise<void>;
  /** The key's record and the decisions made on it. */
  inspect(key: string): Promise<IdempotencyReport>;
  /**
   * Applies an operator's decision when the key's record is still `decision.before` (else
   * nothing changes and the record found is returned): the decision joins the key's
   * decisions, then `succeeded` replaces the record with a succeeded one holding `result`
   * and the decision, and `failed` releases the key. Who may decide what is
   * `settleIdempotencyKey`'s business, not the store's.
   */
  decide(key: string, decision: IdempotencyDecision, result?: unknown): Promise<DecideOutcome>;
}

export interface Stores {
  checkpoints: CheckpointStore;
  idempotency: IdempotencyStore;
}

/** Values are stored as JSON in both stores, so both give back the same shapes. */
function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** True when a stored record is the one a decision was made on (same JSON, whatever the key order). */
export function recordsEqual(stored: IdempotencyRecord | undefined, before: IdempotencyRecord): boolean {
  return stored !== undefined && isDeepStrictEqual(jsonCopy(stored), jsonCopy(before));
}

/** The record an applied decision leaves: a succeeded one for `succeeded`, none for `failed`. */
export function recordAfterDecision(decision: IdempotencyDecision, result: unknown): SucceededRecord | undefined {
  if (decision.as === 'failed') return undefined;
  const { state: _state, ...before } = decision.before;
  const { error: _error, finishedAt: _finished, ...first } = before as Omit<UncertainRecord, 'state'>;
  return jsonCopy({ ...first, state: 'succeeded', result: result ?? null, finishedAt: decision.at, decision });
}

/** Both stores in memory: for one process, tests and hosts with their own persistence. */
export function memoryStore(): Stores {
  const checkpoints = new Map<string, string>();
  const keys = new Map<string, string>();
  const decisions = new Map<string, string[]>();
  const record = (key: string) => {
    const text = keys.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as IdempotencyRecord);
  };
  return {
    checkpoints: {
      async get(stream) {
        const text = checkpoints.get(stream);
        return text === undefined ? undefined : JSON.parse(text);
      },
      async commit(stream, checkpoint) {
        checkpoints.set(stream, JSON.stringify(checkpoint ?? null));
      },
      async clear(stream) {
        checkpoints.delete(stream);
      },
    },
    idempotency: {
      async get(key) {
        return record(key);
      },
      async claim(key, running) {
        const existing = record(key);
        if (existing !== undefined) return existing;
        keys.set(key, JSON.stringify(running));
        return undefined;
      },
      async settle(key, outcome) {
        keys.set(key, JSON.stringify(jsonCopy(outcome)));
      },
      async release(key) {
        keys.delete(key);
      },
      async inspect(key) {
        const found = record(key);
        return {
          key,
          ...(found ? { record: found } : {}),
          decisions: (decisions.get(key) ?? []).map((text) => JSON.parse(text) as IdempotencyDecision),
        };
      },
      async decide(key, decision, result) {
        const found = record(key);
        if (!recordsEqual(found, decision.before)) return { applied: false, ...(found ? { record: found } : {}) };
        decisions.set(key, [...(decisions.get(key) ?? []), JSON.stringify(decision)]);
        const after = recordAfterDecision(decision, result);
        if (after) keys.set(key, JSON.stringify(after));
        else keys.delete(key);
        return { applied: true, ...(after ? { record: after } : {}) };
      },
    },
  };
}
