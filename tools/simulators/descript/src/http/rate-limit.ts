/**
 * A fixed-window request budget per token. Over budget, the provider answers 429 with
 * `Retry-After`; within it, every answer reports what is left of the window.
 */

export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface BudgetCheck {
  allowed: boolean;
  headers: Record<string, string>;
}

export class RequestBudget {
  private readonly windows = new Map<string, { startMs: number; consumed: number }>();

  constructor(private readonly rate: RateLimit) {}

  take(key: string, nowMs: number): BudgetCheck {
    let window = this.windows.get(key);
    if (!window || nowMs >= window.startMs + this.rate.windowMs) {
      window = { startMs: nowMs, consumed: 0 };
      this.windows.set(key, window);
    }
    if (window.consumed >= this.rate.limit) {
      const retryAfter = Math.max(1, Math.ceil((window.startMs + this.rate.windowMs - nowMs) / 1000));
      return {
        allowed: false,
        headers: {
          'Retry-After': String(retryAfter),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Consumed': String(window.consumed),
        },
      };
    }
    window.consumed++;
    return {
      allowed: true,
      headers: {
        'X-RateLimit-Remaining': String(this.rate.limit - window.consumed),
        'X-RateLimit-Consumed': String(window.consumed),
      },
    };
  }
}
