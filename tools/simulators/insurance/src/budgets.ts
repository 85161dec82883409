export interface BudgetLimit {
  /** Requests admitted per window. */
  limit: number;
  windowMs: number;
}

export interface BudgetsOptions {
  /** The three hospital cash quote operations together: 60 per minute. */
  quotes?: Partial<BudgetLimit>;
  /** Every other operation together: 120 per minute. */
  other?: Partial<BudgetLimit>;
}

export type BudgetName = 'quotes' | 'other';

export const DEFAULT_BUDGETS: Readonly<Record<BudgetName, BudgetLimit>> = {
  quotes: { limit: 60, windowMs: 60_000 },
  other: { limit: 120, windowMs: 60_000 },
};

export interface BudgetCounters extends BudgetLimit {
  admitted: number;
  /** Requests answered 429 by this budget. */
  rejected: number;
  /** Most requests (admitted or not) that arrived within any one window: a client that respects the budget keeps it <= limit. */
  peakInWindow: number;
}

export type BudgetDecision = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/**
 * A sliding-window budget: a request is admitted when fewer than `limit` requests were admitted in
 * the last `windowMs`. Sliding rather than fixed windows, so a client cannot pass by bunching its
 * requests around a window boundary.
 */
export class RateBudget {
  private readonly admittedAt: number[] = [];
  private readonly arrivedAt: number[] = [];
  private admitted = 0;
  private rejected = 0;
  private peakInWindow = 0;

  constructor(
    readonly settings: BudgetLimit,
    private readonly clock: () => number,
  ) {
    if (!Number.isInteger(settings.limit) || settings.limit < 1)
      throw new RangeError('budget limit must be a positive integer');
    if (!(settings.windowMs > 0)) throw new RangeError('budget windowMs must be positive');
  }

  take(): BudgetDecision {
    const now = this.clock();
    const windowStart = now - this.settings.windowMs;
    dropUpTo(this.arrivedAt, windowStart);
    dropUpTo(this.admittedAt, windowStart);
    this.arrivedAt.push(now);
    this.peakInWindow = Math.max(this.peakInWindow, this.arrivedAt.length);
    if (this.admittedAt.length < this.settings.limit) {
      this.admittedAt.push(now);
      this.admitted += 1;
      return { admitted: true };
    }
    this.rejected += 1;
    const oldest = this.admittedAt[0] ?? now;
    const waitMs = oldest + this.settings.windowMs - now;
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  counters(): BudgetCounters {
    return { ...this.settings, admitted: this.admitted, rejected: this.rejected, peakInWindow: this.peakInWindow };
  }
}

export function resolveBudget(name: BudgetName, options: BudgetsOptions | undefined): BudgetLimit {
  return { ...DEFAULT_BUDGETS[name], ...options?.[name] };
}

/** Removes the leading timestamps at or before `cutoff` (the arrays are in arrival order). */
function dropUpTo(times: number[], cutoff: number): void {
  let stale = 0;
  while (stale < times.length && (times[stale] as number) <= cutoff) stale += 1;
  times.splice(0, stale);
}
