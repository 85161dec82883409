import type { Job, Worker } from 'bullmq';
import type { Database } from '../database.js';
import type { RunJob } from './jobs.js';
import type { Run } from './runs.js';

/**
 * A run whose worker died holding it, and whose job BullMQ's stalled-job check then failed
 * (a write's at once, `maxStalledCount` 0; a read's after its last stall), ends in no
 * processor: without this its row would say `queued` or `running` with no job behind it, a
 * run lost without a word. The worker that meets the failed job says so in the row: a read,
 * or a write whose row never said `running` (nothing was sent), fails typed (`worker_lost`,
 * retryable: submitting the run again queues it, a read from its last checkpoint); a write
 * that had started stays `running`, for an operator to check with the provider.
 */

/** BullMQ's reason for a job its stalled-job check failed. */
const STALLED = 'job stalled more than allowable limit';

const MESSAGE = {
  source:
    'the worker holding this read stopped and its job was found stalled; submit the run again to read on from its last checkpoint',
  destination:
    'the worker holding this write stopped before the write started, and its job was found stalled; nothing was sent: submit the run again to send it',
} as const;

async function failLost(db: Database, id: string, direction: Run['direction']): Promise<void> {
  const from = direction === 'source' ? ['queued', 'running'] : ['queued'];
  await db.query(
    `UPDATE plugboard_runs SET status = 'failed', error_code = 'worker_lost', error_message = $2, error_status = NULL,
       completed_at = now(), updated_at = now() WHERE id = $1 AND status = ANY($3)`,
    [id, MESSAGE[direction], from],
  );
}

/** Marks the runs of jobs the stalled-job check failed, as the workers meet them. */
export function watchLostRuns(db: Database, workers: { reads: Worker<RunJob>; writes: Worker<RunJob> }): void {
  const watch = (worker: Worker<RunJob>, direction: Run['direction']) =>
    worker.on('failed', (job: Job<RunJob> | undefined, error: Error) => {
      if (job && error.message === STALLED) void failLost(db, job.data.runId, direction).catch(() => undefined);
    });
  watch(workers.reads, 'source');
  watch(workers.writes, 'destination');
}
