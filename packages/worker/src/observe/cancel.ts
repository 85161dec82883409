import { Redis } from 'ioredis';
import type pg from 'pg';
import type { Database } from '../database.js';
import { READS_QUEUE, WRITES_QUEUE } from '../queue/jobs.js';
import { type QueueRedis, queueRedis, quietQueue, reachRedis } from '../queue/redis.js';
import { hasEnded, type Run } from '../queue/runs.js';
import { requireRun, withDatabase } from './runs-report.js';

/**
 * Cancelling a run. A queued one is taken off its queue and its row marked `cancelled`. A running
 * one is asked for: a key `plugboard:cancel:<id>` (naming the attempt, kept a day, for a worker that
 * takes the run a moment later) and a message on the channel `plugboard:cancel`, on which every worker listens;
 * the worker running it aborts the run's `AbortSignal`, and marks its row `cancelled` once the run
 * stopped.
 */

/** The channel every worker listens on for cancels; a message is a run's id. */
export const CANCEL_CHANNEL = 'plugboard:cancel';
const CANCEL_KEY_SECONDS = 86_400;

export function cancelKey(id: string): string {
  return `plugboard:cancel:${id}`;
}

export interface CancelRunOptions {
  redis: string;
  postgres: string | pg.Pool;
  id: string;
}

/** What a cancel did: `cancelled` (it was queued), `requested` (it runs: its worker stops it), `ended` (nothing to do). */
export interface Cancellation {
  outcome: 'cancelled' | 'requested' | 'ended';
  run: Run;
}

/** Marks the row cancelled while it still has one of the statuses given; answers whether it did. */
export async function markCancelled(db: Database, id: string, from: Run['status'][]): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE plugboard_runs SET status = 'cancelled', completed_at = now(), updated_at = now()
     WHERE id = $1 AND status = ANY($2::text[])`,
    [id, from],
  );
  return rowCount === 1;
}

/** Removes the job while no worker holds it; answers whether it was removed. */
async function removeQueued(redis: QueueRedis, run: Run): Promise<boolean> {
  const queue = quietQueue(run.direction === 'source' ? READS_QUEUE : WRITES_QUEUE, redis.connection);
  try {
    const job = await queue.getJob(run.id);
    if (!job) return true;
    // A job a worker holds is locked: BullMQ answers 0 and leaves it.
    return (await queue.remove(run.id)) === 1;
  } finally {
    await queue.close();
  }
}

/** Asks the workers to stop the run: a key for one that takes it later, a message for the one running it. */
async function requestCancel(redis: QueueRedis, id: string, attempt: number): Promise<void> {
  const client = new Redis(redis.connection.url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    await client.set(cancelKey(id), String(attempt), 'EX', CANCEL_KEY_SECONDS);
    await client.publish(CANCEL_CHANNEL, id);
  } finally {
    client.disconnect();
  }
}

/** Cancels run `id`: a queued one at once, a running one through its worker's signal. */
export async function cancelRun(options: CancelRunOptions): Promise<Cancellation> {
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: false });
  return withDatabase(options.postgres, async (db) => {
    const run = await requireRun(db, options.id);
    if (hasEnded(run.status)) return { outcome: 'ended', run };
    // The row first: a follower told the job was removed reads it cancelled. A worker that took the
    // job meanwhile (it cannot be removed) is asked below, and stops it before anything is sent.
    if (run.status === 'queued' && (await markCancelled(db, run.id, ['queued'])) && (await removeQueued(redis, run)))
      return { outcome: 'cancelled', run: await requireRun(db, run.id) };
    await requestCancel(redis, run.id, run.retryCount);
    return { outcome: 'requested', run: await requireRun(db, run.id) };
  });
}
