import { Worker } from 'bullmq';
import type pg from 'pg';
import type { RunHost } from '../queue/execute-job.js';
import type { QueueRedis } from '../queue/redis.js';
import { reconcile, SCHEDULES_QUEUE, type TickJob } from './reconcile.js';
import { tickProcessor } from './tick.js';
import { createSubmitter } from '../queue/submit.js';

/**
 * A worker's part in the schedules: it takes ticks from the ticks queue, and reconciles BullMQ
 * with PostgreSQL once at start and then every `everyMs` (under the fleet's advisory lock, so
 * one worker at a time does it).
 */

export interface ScheduleKeeper {
  /** Stops reconciling and takes no new tick; resolves once the tick in hand ended. */
  close(): Promise<void>;
}

export async function keepSchedules(options: {
  redis: QueueRedis;
  pool: pg.Pool;
  run: Pick<RunHost, 'connectors' | 'plugins'>;
  everyMs: number;
}): Promise<ScheduleKeeper> {
  const reconcileNow = () => reconcile(options.redis, options.pool);
  await reconcileNow();
  let pending = Promise.resolve();
  // One reconciliation at a time; a failed one (Redis or PostgreSQL away) is tried again next period.
  const timer = setInterval(() => {
    pending = pending.then(() =>
      reconcileNow().then(
        () => undefined,
        () => undefined,
      ),
    );
  }, options.everyMs);
  timer.unref();
  const submitter = createSubmitter({ redis: options.redis.connection.url, postgres: options.pool });
  const ticks = new Worker<TickJob>(SCHEDULES_QUEUE, tickProcessor({ ...options, submitter }), {
    connection: options.redis.connection,
    concurrency: 1,
  });
  ticks.on('error', () => {});
  return {
    close: async () => {
      clearInterval(timer);
      await Promise.all([ticks.close(), pending]);
      await submitter.close();
    },
  };
}
