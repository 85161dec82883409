import { ConnectorError, RateLimitedError } from '@plugboard/sdk';
import { createExecutor, type ExecutorOptions } from '@plugboard/sdk/host';
import { type Job, Worker } from 'bullmq';
import type { Database } from '../database.js';
import { markCancelled } from '../observe/cancel.js';
import type { RunObserver, RunScope } from '../observe/observer.js';
import type { PostgresSink } from '../sink/postgres-sink.js';
import { SinkCheckpointMovedError } from '../sink/errors.js';
import { followedReport } from './followed.js';
import { READS_QUEUE, type RunJob, type RunProgress } from './jobs.js';
import type { PluginPool } from './plugin-pool.js';
import { countPage, finishRun, markQueued, markRunning } from './runs.js';
import { executeIntoSink, jobRequest, requeueMovedRun } from './sink-run.js';

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

/** Reports a run's pages and progress to its followers. */
export type Report = (event: RunProgress) => Promise<void>;

async function execute(
  host: RunHost,
  db: Database,
  job: Job<RunJob>,
  scope: RunScope,
  report: Report,
): Promise<number> {
  const data = job.data;
  // A job carries its connection: this run's executor resolves that one.
  const executor = createExecutor({ ...host, resolveConnection: () => data.connection });
  const outcome = await executor.execute({
    ...jobRequest(data),
    signal: scope.signal,
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

/** What a queue's processor runs with: the host, the rows, its BullMQ worker (made after it), the observer, a sink for reads, the isolated plugins. */
export interface Processing {
  host: RunHost;
  db: Database;
  worker: () => Worker<RunJob>;
  observer: RunObserver;
  sink?: PostgresSink | undefined;
  plugins?: PluginPool | undefined;
}

/** Executes the run, holding its plugin's process (if a plugin runs it) until the run ended. */
async function executeRun(
  { host, db, sink, plugins }: Processing,
  job: Job<RunJob>,
  scope: RunScope,
  report: Report,
): Promise<number> {
  const lease = await plugins?.lease(job.data.connector);
  const runHost = lease ? { ...host, plugins: [lease.plugin] } : host;
  try {
    return sink && job.queueName === READS_QUEUE
      ? await executeIntoSink(runHost, sink, job, { scope, report })
      : await execute(runHost, db, job, scope, report);
  } finally {
    lease?.release();
  }
}

/** The processor of a queue's worker. With a sink, a read writes its pages there instead. */
export function runProcessor(processing: Processing) {
  return (job: Job<RunJob>, token?: string): Promise<RunResult> =>
    processing.observer.run(job, (scope) => processRun(processing, job, scope, token));
}

async function processRun(
  processing: Processing,
  job: Job<RunJob>,
  scope: RunScope,
  token: string | undefined,
): Promise<RunResult> {
  const { db, worker } = processing;
  await markRunning(db, job.data.runId);
  const report = followedReport(worker(), job);
  try {
    const records = await executeRun(processing, job, scope, report);
    await finishRun(db, job.data.runId, { status: 'succeeded' });
    return { attempt: job.data.attempt, records };
  } catch (error) {
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
      // Back in the queue, every worker of it paused for the wait: no attempt spent.
      await markQueued(db, job.data.runId);
      await worker().rateLimit(error.retryAfterMs);
      throw Worker.RateLimitError();
    }
    if (error instanceof SinkCheckpointMovedError) return await requeueMovedRun(db, job, token);
    // Stopped by a cancel (`cancelRun`): cancelled, not failed.
    if (scope.signal.aborted && (await markCancelled(db, job.data.runId, ['running']))) throw error;
    const code = error instanceof ConnectorError ? error.code : 'internal_error';
    const message = error instanceof Error ? error.message : String(error);
    const providerStatus = error instanceof ConnectorError ? error.status : undefined;
    await finishRun(db, job.data.runId, { status: 'failed', code, message, providerStatus });
    throw error;
  }
}
