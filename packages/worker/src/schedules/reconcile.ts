import type { Queue } from 'bullmq';
import type pg from 'pg';
import { connect, database, release } from '../database.js';
import { type QueueRedis, queueRedis, quietQueue } from '../queue/redis.js';
import { readSchedules, recordNextCheck, type StoredSchedule } from './store.js';

/**
 * PostgreSQL holds the schedules; BullMQ ticks them, one job scheduler each on the ticks queue.
 * Reconciling makes BullMQ match PostgreSQL under one advisory lock, so of any number of workers
 * reconciling at once one does it and the others find nothing left to do.
 */

/** The queue BullMQ's job schedulers put ticks on; a tick's job names its schedule. */
export const SCHEDULES_QUEUE = 'plugboard-schedules';
/** Held for the transaction of one reconciliation, fleet-wide. */
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('plugboard_schedules'))";

/** What a tick's job carries: the schedule's id, nothing else (the row holds the rest). */
export interface TickJob {
  pollTriggerId: string;
}

export interface ReconcileOptions {
  /** The queue's Redis: `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  redis: string;
  /** The schedules' PostgreSQL: a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
}

/** Which schedulers this call put into BullMQ, and which it took out. */
export interface Reconciliation {
  added: string[];
  removed: string[];
}

const minutes = (schedule: StoredSchedule) => schedule.intervalMinutes * 60_000;

async function apply(
  queue: Queue<TickJob>,
  schedules: StoredSchedule[],
): Promise<Reconciliation & { next: Map<string, number> }> {
  const present = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
  const wanted = new Set(schedules.map((schedule) => schedule.pollTriggerId));
  const added: string[] = [];
  const next = new Map<string, number>();
  for (const schedule of schedules) {
    if (present.get(schedule.pollTriggerId)?.every === minutes(schedule)) continue;
    const job = await queue.upsertJobScheduler(
      schedule.pollTriggerId,
      { every: minutes(schedule) },
      {
        name: 'tick',
        data: { pollTriggerId: schedule.pollTriggerId },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
    );
    added.push(schedule.pollTriggerId);
    if (job) next.set(schedule.pollTriggerId, job.timestamp + (job.opts.delay ?? 0));
  }
  const removed: string[] = [];
  for (const key of present.keys()) {
    if (wanted.has(key)) continue;
    await queue.removeJobScheduler(key);
    removed.push(key);
  }
  return { added, removed, next };
}

/**
 * Puts into BullMQ each schedule it lacks (or whose interval changed) and takes out each scheduler
 * PostgreSQL lacks, holding the fleet's advisory lock while it does.
 */
export function reconcileSchedules(options: ReconcileOptions): Promise<Reconciliation> {
  return reconcile(queueRedis(options.redis), options.postgres);
}

/** `reconcileSchedules` on a Redis checked already. */
export async function reconcile(redis: QueueRedis, postgres: string | pg.Pool): Promise<Reconciliation> {
  const connection = connect(postgres, 'postgres');
  const queue = quietQueue<TickJob>(SCHEDULES_QUEUE, redis.connection);
  try {
    const db = database(connection.pool);
    const { added, removed, next } = await db.transaction(async (client) => {
      await client.query(LOCK);
      return apply(queue, await readSchedules(client));
    });
    for (const [id, at] of next) await recordNextCheck(db, id, new Date(at));
    return { added, removed };
  } finally {
    await queue.close();
    await release(connection);
  }
}
