import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The state of one rate budget that every request on it must see alike: the
 * sliding window of send times, the pause, the probe and whether the provider
 * has confirmed the budget open since the last pause. The `Budget` keeps the
 * waiting (abort-aware sleeps, the action's ceiling) and asks this store only
 * short questions, each answered atomically.
 *
 * `MemoryBudgetState` keeps it in this process (the default). The Redis store
 * (`redis-budget-state.ts`, with `createTransport({ redis })`) keeps it in Redis
 * so that every process on the same Redis shares one budget.
 */

/** What a budget looks like to this process. */
export interface BudgetState {
  /** When the current pause ends (ms since the epoch, this machine's clock); in the past when open. */
  pausedUntil: number;
  /** A request came back without a 429 since the last pause. */
  confirmed: boolean;
  /** Pauses started so far. */
  pauses: number;
}

/** The probe this request holds: release it once its answer has been read. */
export interface ProbeClaim {
  release(): Promise<void>;
}

/** Where a request about to go stands. */
export type BudgetEntry =
  /** The budget is paused for `waitMs` more. */
  | { kind: 'paused'; waitMs: number }
  /** Confirmed open: go. */
  | { kind: 'open' }
  /** Not confirmed and no probe out: this request is the probe. */
  | { kind: 'probe'; claim: ProbeClaim }
  /** Another request is the probe: wait for it (`probeSettled`), then ask again. */
  | { kind: 'probing' };

export interface BudgetStateStore {
  /** True when other processes share this state. */
  readonly shared: boolean;
  /**
   * Says whether a request may go: paused (and for how long), open, or waiting
   * on a probe; claims the probe when the budget is neither paused nor
   * confirmed and no probe is out.
   */
  enter(): Promise<BudgetEntry>;
  /**
   * Counts one request in the sliding window when fewer than `limit` were
   * counted in the last `periodMs`, and returns 0; otherwise counts nothing
   * and returns how long until the oldest one leaves the window.
   */
  takeSlot(limit: number, periodMs: number): Promise<number>;
  /** How long the budget stays paused; 0 when open. */
  pausedFor(): Promise<number>;
  /** Pauses the budget for `ms` (unless it is paused longer already) and asks for a probe again. */
  pause(ms: number): Promise<void>;
  /** A request came back without a 429: the others may follow. */
  confirm(): Promise<void>;
  /** Resolves when a probe held by another request may have come back. */
  probeSettled(signal: AbortSignal): Promise<void>;
  /** The state as this process last saw it, without asking anyone. */
  snapshot(): BudgetState;
  /** The state as it is now (in Redis, a round trip). */
  read(): Promise<BudgetState>;
}

/** Rejects with the signal's reason as soon as it aborts, whatever the promise does. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A budget's state in this process's memory: one process, one budget. */
export class MemoryBudgetState implements BudgetStateStore {
  readonly shared = false;
  /** When each of the latest `limit` requests was sent, oldest first. */
  private readonly sent: number[] = [];
  private pausedUntil = 0;
  private confirmed = false;
  private pauses = 0;
  private probe: Promise<void> | undefined;

  async enter(): Promise<BudgetEntry> {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) return { kind: 'paused', waitMs: wait };
    if (this.confirmed) return { kind: 'open' };
    if (this.probe) return { kind: 'probing' };
    let end!: () => void;
    const probe = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.probe = probe;
    return {
      kind: 'probe',
      claim: {
        release: async () => {
          if (this.probe === probe) this.probe = undefined;
          end();
        },
      },
    };
  }

  async takeSlot(limit: number, periodMs: number): Promise<number> {
    const now = Date.now();
    while (this.sent.length > 0 && this.sent[0]! <= now - periodMs) this.sent.shift();
    if (this.sent.length < limit) {
      this.sent.push(now);
      return 0;
    }
    return this.sent[0]! + periodMs - now;
  }

  async pausedFor(): Promise<number> {
    return Math.max(0, this.pausedUntil - Date.now());
  }

  async pause(ms: number): Promise<void> {
    const until = Date.now() + ms;
    if (until <= this.pausedUntil) return;
    if (this.pausedUntil <= Date.now()) this.pauses += 1;
    this.pausedUntil = until;
    this.confirmed = false;
  }

  async confirm(): Promise<void> {
    this.confirmed = true;
  }

  probeSettled(signal: AbortSignal): Promise<void> {
    return this.probe ? abortable(this.probe, signal) : sleep(0, undefined, { signal });
  }

  snapshot(): BudgetState {
    return { pausedUntil: this.pausedUntil, confirmed: this.confirmed, pauses: this.pauses };
  }

  async read(): Promise<BudgetState> {
    return this.snapshot();
  }
}
