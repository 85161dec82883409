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
}

export interface Stores {
  checkpoints: CheckpointStore;
  idempotency: IdempotencyStore;
}

/** Values are stored as JSON in both stores, so both give back the same shapes. */
function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Both stores in memory: for one process, tests and hosts with their own persistence. */
export function memoryStore(): Stores {
  const checkpoints = new Map<string, string>();
  const keys = new Map<string, string>();
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
        const text = keys.get(key);
        return text === undefined ? undefined : (JSON.parse(text) as IdempotencyRecord);
      },
      async claim(key, record) {
        const text = keys.get(key);
        if (text !== undefined) return JSON.parse(text) as IdempotencyRecord;
        keys.set(key, JSON.stringify(record));
        return undefined;
      },
      async settle(key, record) {
        keys.set(key, JSON.stringify(jsonCopy(record)));
      },
      async release(key) {
        keys.delete(key);
      },
    },
  };
}

/** A file name for any key: the key's hash, so keys may hold any character and any length. */
