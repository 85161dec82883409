import { ConnectorError, excerpt } from '@plugboard/sdk';
import type { Job } from 'bullmq';
import type pg from 'pg';
import { database } from '../database.js';
import type { RunHost } from '../queue/execute-job.js';
import type { QueueRedis } from '../queue/redis.js';
import type { Submitter } from '../queue/submit.js';
import { readRunStatus } from './runs.js';
import type { TickJob } from './reconcile.js';
import { lockSchedule, recordTick, type StoredSchedule, type TickRecord } from './store.js';

/**
 * One tick of a schedule: its run submitted through the queue's own path (a `Submitter`: the same
 * checks, a row, a job), under an id of its own per tick; or skipped, said so in `stateMessage`,
 * while the run the previous tick queued is still queued or running. The schedule's row stays
 * locked for the tick, so two ticks of one schedule never both submit.
 */

export interface TickHost {
  redis: QueueRedis;
  pool: pg.Pool;
  /** The worker's connectors and plugins, which the run is checked against. */
  run: Pick<RunHost, 'connectors' | 'plugins'>;
  /** Queues the ticks' runs over the worker's connections. */
  submitter: Submitter;
}

async function submitTick(host: TickHost, schedule: StoredSchedule, tickMillis: number) {
  const { id } = await host.submitter.submit({
    ...(host.run.connectors ? { connectors: host.run.connectors } : {}),
    ...(host.run.plugins ? { plugins: host.run.plugins } : {}),
    connector: schedule.connector,
    action: schedule.operationKey,
    input: schedule.input,
    connection: schedule.connection,
    environment: schedule.environment,
    // A source ignores the key but for the run's id: one run per tick, the same tick twice one run.
    idempotencyKey: `schedule:${schedule.pollTriggerId}:${tickMillis}`,
  });
  return id;
}

/** What the tick does with the schedule as its row says. */
async function decide(host: TickHost, client: pg.PoolClient, schedule: StoredSchedule, tickMillis: number) {
  const checkedAt = new Date(tickMillis);
  const nextCheckAt = new Date(tickMillis + schedule.intervalMinutes * 60_000);
  const previous = schedule.lastRunId ? await readRunStatus(client, schedule.lastRunId) : undefined;
  if (previous === 'queued' || previous === 'running')
    return {
      state: 'skipped',
      stateMessage: `tick skipped: run ${schedule.lastRunId} is still ${previous}`,
      checkedAt,
      nextCheckAt,
    } satisfies TickRecord;
  try {
    const runId = await submitTick(host, schedule, tickMillis);
    return { state: 'submitted', stateMessage: null, checkedAt, nextCheckAt, runId } satisfies TickRecord;
  } catch (error) {
    const code = error instanceof ConnectorError ? error.code : 'internal_error';
    const message = excerpt(error instanceof Error ? error.message : String(error), 500);
    return { state: 'failed', stateMessage: `${code}: ${message}`, checkedAt, nextCheckAt } satisfies TickRecord;
  }
}

/** The processor of the ticks queue. A tick of a schedule removed meanwhile does nothing (reconciling takes its scheduler out). */
export function tickProcessor(host: TickHost) {
  const db = database(host.pool);
  return async (job: Job<TickJob>): Promise<void> => {
    // The tick's own time, as BullMQ's scheduler set it: the same for every attempt of this tick.
    const tickMillis = job.opts.prevMillis ?? job.timestamp;
    await db.transaction(async (client) => {
      const schedule = await lockSchedule(client, job.data.pollTriggerId);
      if (!schedule) return;
      await recordTick(client, schedule.pollTriggerId, await decide(host, client, schedule, tickMillis));
    });
  };
}
