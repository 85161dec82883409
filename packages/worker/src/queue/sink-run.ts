import { type ExecutorOptions, setUpExecutor } from '@plugboard/sdk/host';
import { type Job, WaitingError } from 'bullmq';
import type { Database } from '../database.js';
import type { PostgresSink } from '../sink/postgres-sink.js';
import { runSourceIntoSink } from '../sink/run.js';
import type { RunJob, RunProgress } from './jobs.js';
import type { RunScope } from '../observe/observer.js';
import { markQueued } from './runs.js';

/**
 * A source run taken from the queue written into the exactly-once sink (`startWorker({ sink:
 * 'postgres' })`): the worker's executor setup, each page written with its checkpoint in one
 * transaction with its count in the run's row, then reported.
 */

/** The executor's request a job carries, without its page handler. */
export function jobRequest(data: RunJob) {
  return {
    connectorKey: data.connector,
    action: data.action,
    connectionId: data.connection.id,
    environment: data.environment,
    input: data.input,
    ...(data.approval ? { approval: data.approval } : {}),
    ...(data.idempotencyKey !== undefined ? { idempotencyKey: data.idempotencyKey } : {}),
  };
}

/** What a run into the sink tells as it goes: its scope (cancel, metrics) and its followers. */
export interface SinkRunTelling {
  scope: RunScope;
  report: (event: RunProgress) => Promise<void>;
}

/** The sink, each page counted in the run's row in the page's own transaction, and reported to followers once written. */
function reportingSink(sink: PostgresSink, job: Job<RunJob>, { scope, report }: SinkRunTelling): PostgresSink {
  const { attempt, runId } = job.data;
  let index = 0;
  return {
    ...sink,
    async write(stream, page, startedAt) {
      const outcome = await sink.write(stream, page, startedAt, { countIn: runId });
      if (outcome === 'written') {
        // Serialised once, by BullMQ, as they are: no copy.
        await report({ attempt, type: 'page', index: index++, records: page.records as unknown[] });
        scope.counted(page.records.length);
      }
      return outcome;
    },
  };
}

/** Runs the job's source into the sink; answers the records written. */
export async function executeIntoSink(
  host: Omit<ExecutorOptions, 'resolveConnection'>,
  sink: PostgresSink,
  job: Job<RunJob>,
  telling: SinkRunTelling,
): Promise<number> {
  const setup = setUpExecutor({ ...host, resolveConnection: () => job.data.connection });
  const outcome = await runSourceIntoSink(setup, reportingSink(sink, job, telling), {
    ...jobRequest(job.data),
    signal: telling.scope.signal,
  });
  return outcome.records;
}

/**
 * Another holder of the run moved its checkpoint (a read handed on while its first worker was
 * still alive): back to the queue, to resume from the checkpoint stored, as a stalled read is.
 * When this worker no longer holds the job, moving it fails and the row is the holder's to end.
 */
export async function requeueMovedRun(db: Database, job: Job<RunJob>, token: string | undefined): Promise<never> {
  await markQueued(db, job.data.runId);
  await job.moveToWait(token);
  throw new WaitingError();
}
