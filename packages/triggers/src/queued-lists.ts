import type pg from 'pg';
import type { PollTriggerState } from './poll-state.js';
import type { TriggerDelivery } from './receipts.js';

/**
 * What an operator reads of receivers in queued mode, from the fleet's PostgreSQL: the receipts,
 * and the poll triggers' schedules. pg and the worker are loaded only when called.
 */

export interface QueuedListOptions {
  /** The fleet's PostgreSQL: a URL (a pool made and ended here), or the host's pool (left open). */
  postgres: string | pg.Pool;
}

/** The receipts kept in PostgreSQL, oldest first: of one trigger, or of all. */
export async function* listQueuedDeliveries(
  options: QueuedListOptions & { triggerId?: string },
): AsyncGenerator<TriggerDelivery> {
  const [{ migratedPool }, { postgresDeliveries }] = await Promise.all([
    import('./queued.js'),
    import('./postgres-receipts.js'),
  ]);
  const { pool, end } = await migratedPool(options.postgres);
  try {
    yield* postgresDeliveries(pool, options.triggerId === undefined ? {} : { triggerId: options.triggerId });
  } finally {
    await end();
  }
}

/** Each poll trigger a receiver registered as a schedule, as it is now, by pollTriggerId. */
export async function listQueuedPolls(options: QueuedListOptions): Promise<PollTriggerState[]> {
  const { listQueuedPolls: list } = await import('./queued-polls.js');
  return list(options);
}
