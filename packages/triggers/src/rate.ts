import type { Clock } from '@plugboard/sdk/host';

/**
 * A trigger's `maxDeliveriesPerMinute` as a sliding window on the receiver's clock: a request is
 * let through when fewer than the limit were let through in the minute before it. The times of
 * the last `limit` requests let through are kept in a ring, so memory is fixed per trigger and
 * each decision takes constant time. Refused requests do not count.
 */

const WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface DeliveryRate {
  /** Counts the request when it may go now; otherwise how many whole seconds until one may. */
  admit(): RateDecision;
}

export function deliveryRate(limit: number, clock: Clock): DeliveryRate {
  const times = new Float64Array(limit);
  // The oldest kept time is at `next` once the ring is full.
  let next = 0;
  let count = 0;
  return {
    admit() {
      const now = clock.now();
      if (count === limit) {
        const oldest = times[next]!;
        const freeAt = oldest + WINDOW_MS;
        if (now < freeAt) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
      } else count += 1;
      times[next] = now;
      next = (next + 1) % limit;
      return { allowed: true };
    },
  };
}
