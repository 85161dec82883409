import { ConnectorError, RateLimitedError } from '@plugboard/sdk';
import { createExecutor, type ExecutorOptions } from '@plugboard/sdk/host';
import { type Job, Worker } from 'bullmq';
import type { Database } from '../database.js';
import { markCancelled } from '../observe/cancel.js';
import type { RunObserver, RunScope } from '../observe/observer.js';
import type { RunJob, RunProgress } from './jobs.js';
import { countPage, finishRun, markQueued, markRunning } from './runs.js';

/**
 * One run taken from the queue, executed through the SDK's executor (the one way to run an
 * action) with the fleet's stores, its row kept up to date. A provider's rate limit puts the run
 * back and pauses the queue for the wait it asked for, without spending an attempt.
 */

/** What every run of a worker shares: the connectors, the credential resolver, the stores, the transport. */
export type RunHost = Omit<ExecutorOptions, 'resolveConnection'>;

/** What the worker says a run ended with: its records, for a follower that missed them. */
export interface RunResult {
  attempt: number;
  records: number;
}

async function execute(host: RunHost, db: Database, job: Job<RunJob>, scope: RunScope): Promise<number> {
  const data = job.data;
  const report = (event: RunProgress) => job.updateProgress(event);
  // A job carries its connection: this run's executor resolves that one.
  const executor = createExecutor({ ...host, resolveConnection: () => data.connection });
  const outcome = await executor.execute({
    connectorKey: data.connector,
    action: data.action,
    connectionId: data.connection.id,
    environment: data.environment,
    input: data.input,
    signal: scope.signal,
    ...(data.approval ? { approval: data.approval } : {}),
    ...(data.idempotencyKey !== undefined ? { idempotencyKey: data.idempotencyKey } : {}),
    onProgress: (event) => {
      // Progress is told as it comes, not awaited: one that cannot be told is not worth failing the run.
      if (event.type === 'progress') report({ attempt: data.attempt, ...event, type: 'progress' }).catch(() => {});
    },
    // The page's checkpoint is committed once this resolves: after its records were counted and reported.
    onPage: async (page, { index }) => {
      await report({ attempt: data.attempt, type: 'page', index, records: page.records });
      await countPage(db, data.runId, page.records.length);
      scope.counted(page.records.length);
    },
  });
  if (outcome.direction === 'source') return outcome.records;
  await report({ attempt: data.attempt, type: 'page', index: 0, records: [outcome.result] });
  await countPage(db, data.runId, 1);
  scope.counted(1);
  return 1;
}

/** The processor of a queue's worker; `worker()` is the BullMQ worker it runs in (made after it). */
export function runProcessor(host: RunHost, db: Database, worker: () => Worker<RunJob>, observer: RunObserver) {
  return (job: Job<RunJob>): Promise<RunResult> =>
    observer.run(job, (scope) => processRun(host, db, worker, job, scope));
}

async function processRun(
  host: RunHost,
  db: Database,
  worker: () => Worker<RunJob>,
  job: Job<RunJob>,
  scope: RunScope,
): Promise<RunResult> {
  await markRunning(db, job.data.runId);
  try {
    const records = await execute(host, db, job, scope);
    await finishRun(db, job.data.runId, { status: 'succeeded' });
    return { attempt: job.data.attempt, records };
  } catch (error) {
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
      // Back in the queue, every worker of it paused for the wait: no attempt spent.
      await markQueued(db, job.data.runId);
      await worker().rateLimit(error.retryAfterMs);
      throw Worker.RateLimitError();
    }
    // Stopped by a cancel (`cancelRun`): cancelled, not failed.
    if (scope.signal.aborted && (await markCancelled(db, job.data.runId, ['running']))) throw error;
    const code = error instanceof ConnectorError ? error.code : 'internal_error';
    const message = error instanceof Error ? error.message : String(error);
    await finishRun(db, job.data.runId, { status: 'failed', code, message });
    throw error;
  }
}
