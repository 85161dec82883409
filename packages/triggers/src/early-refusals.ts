import type { LogSink } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import { deliveryRate } from './rate.js';

/**
 * Receipts of the requests a trigger refuses before its rate window lets them in (`disabled`) or
 * because it does not (`rate_limited`), kept at the trigger's own rate: at most
 * `maxDeliveriesPerMinute` in any minute, on a window of their own. Everything past the delivery
 * rate is refused this early, so a flood cannot grow the receipts (a file, or PostgreSQL rows)
 * faster than twice the trigger's rate. A refusal past it is answered as any other, without a
 * receipt; the metrics count it, and the log says so once a minute while it lasts.
 */

const SAY_EVERY_MS = 60_000;

export interface EarlyRefusals {
  /** Whether this refusal leaves a receipt. */
  recorded(): boolean;
}

export function earlyRefusals(settings: TriggerSettings, clock: Clock, log: LogSink): EarlyRefusals {
  const window = deliveryRate(settings.maxDeliveriesPerMinute, clock);
  let saidAt = Number.NEGATIVE_INFINITY;
  return {
    recorded() {
      if (window.admit().allowed) return true;
      const now = clock.now();
      if (now - saidAt >= SAY_EVERY_MS) {
        saidAt = now;
        log({
          level: 'warn',
          message: `trigger ${settings.triggerId}: more than ${settings.maxDeliveriesPerMinute} requests a minute refused before reading: those past it leave no receipt (the metrics count them)`,
          time: new Date(now).toISOString(),
          triggerId: settings.triggerId,
        });
      }
      return false;
    },
  };
}
