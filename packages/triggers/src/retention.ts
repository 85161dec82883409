import type { Clock } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import type { EventStore } from './event-store.js';

/**
 * `inputRetentionDays`: an accepted delivery (its input and its dedupe record) is removed once it
 * is older than its trigger's retention. A delivery that old can never come again inside the
 * timestamp tolerance (at most an hour), so forgetting its event id lets no replay through.
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
}

export function retention(triggers: readonly TriggerSettings[], events: EventStore, clock: Clock): Retention {
  let last = Number.NEGATIVE_INFINITY;
  let running: Promise<number> | undefined;
  const pruneAll = async () => {
    last = clock.now();
    let removed = 0;
    for (const trigger of triggers)
      removed += await events.prune(trigger.triggerId, last - trigger.inputRetentionDays * DAY_MS);
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
  };
}
