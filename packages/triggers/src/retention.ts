import type { Clock } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import type { EventStore } from './event-store.js';
import type { ReceiptLog } from './receipts.js';

/**
 * `inputRetentionDays`: an accepted delivery (its input and its dedupe record) is removed once it
 * is older than its trigger's retention. A delivery that old can never come again inside the
 * timestamp tolerance (at most an hour), so forgetting its event id lets no replay through.
 * Receipts are kept until removed, or for `receiptRetentionDays` when the receiver is given it.
 * Pruning runs when the receiver listens and then at most once an hour of its clock, after an
 * accepted delivery.
 */

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

export interface Retention {
  /** Prunes every trigger now. */
  prune(): Promise<number>;
  /** Prunes when the last pruning is an hour old; a pruning under way is not started twice. */
  maybePrune(): Promise<number>;
  /** Resolves once no pruning is under way (whatever became of it). */
  settled(): Promise<void>;
}

export interface Kept {
  events: EventStore;
  receipts: ReceiptLog;
  /** Absent: receipts are kept until removed. */
  receiptRetentionDays: number | undefined;
}

export function retention(triggers: readonly TriggerSettings[], kept: Kept, clock: Clock): Retention {
  let last = Number.NEGATIVE_INFINITY;
  let running: Promise<number> | undefined;
  const pruneAll = async () => {
    last = clock.now();
    let removed = 0;
    for (const trigger of triggers)
      removed += await kept.events.prune(trigger.triggerId, last - trigger.inputRetentionDays * DAY_MS);
    if (kept.receiptRetentionDays !== undefined) await kept.receipts.prune(last - kept.receiptRetentionDays * DAY_MS);
    return removed;
  };
  const prune = () => {
    running ??= pruneAll().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    prune,
    maybePrune: () => (clock.now() - last >= EVERY_MS ? prune() : Promise.resolve(0)),
    settled: async () => {
      await running?.catch(() => undefined);
    },
  };
}
