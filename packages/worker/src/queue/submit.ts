import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, Environment } from '@plugboard/sdk';
import type { ExecutorOptions, HostConnection } from '@plugboard/sdk/host';
import { Queue } from 'bullmq';
import type pg from 'pg';
import { connect, database, release } from '../database.js';
import { assertMigrated } from '../migrations.js';
import { traceCarrier } from '../observe/tracing.js';
import { type FollowHandlers, type Watch, watchRun } from './follow.js';
import { READS_QUEUE, type RunJob, runId, WRITES_QUEUE } from './jobs.js';
import { type QueueRedis, queueRedis, reachRedis } from './redis.js';
import { hasEnded, type Run, recordSubmission } from './runs.js';
import { checkRun } from './validation.js';

export interface SubmitRunOptions {
  /** The queue's Redis: `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  redis: string;
  /** The runs' PostgreSQL: a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
  /** The connectors the run is checked against, as the executor takes them; the workers run their own copies. */
  connectors?: ExecutorOptions['connectors'];
  /** Loaded or isolated plugins, as the executor takes them. */
  plugins?: ExecutorOptions['plugins'];
  /** The connector's key. */
  connector: string;
  action: string;
  input?: unknown;
  /** The connection the run names, with its non-secret settings; never a credential. */
  connection: HostConnection;
  /** Default `sandbox`. */
  environment?: Environment;
  /** A destination's key (the executor's): the run's id is derived from it. */
  idempotencyKey?: string;
  approval?: ApprovalDecision;
  /** The platform's correlation id; default a new UUID. */
  correlationId?: string;
  /** Follows the run until it ends (pages and progress from the moment it is queued); the answer then holds its row. */
  follow?: FollowHandlers;
}

/** What a submission did: the run's id, and whether this call queued it (false: it was queued, running or done already). */
export interface Submission {
  id: string;
  queued: boolean;
  /** With `follow`: the run's row once it ended. */
  run?: Run;
}

/** Puts the job on its queue under the run's id; the same id twice is one job (BullMQ keeps the first). */
async function enqueue(redis: QueueRedis, direction: Run['direction'], job: RunJob): Promise<void> {
  const queue = new Queue<RunJob>(direction === 'source' ? READS_QUEUE : WRITES_QUEUE, {
    connection: redis.connection,
  });
  try {
    await queue.add(job.action, job, { jobId: job.runId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
  } finally {
    await queue.close();
  }
}

/** Waits for the run's end when followed; the run as it is otherwise. */
async function ended(watch: Watch | undefined, run: Run): Promise<Run> {
  if (!watch) return run;
  try {
    return await watch.ended;
  } finally {
    await watch.close();
  }
}

/**
 * Checks the run as the executor would (nothing is queued nor recorded when it fails), records
 * it in `plugboard_runs` and queues it under its deterministic id: reads on one queue,
 * destinations on the writes queue. A run already queued, running or succeeded is not queued again.
 */
export async function submitRun(options: SubmitRunOptions): Promise<Submission> {
  const environment = options.environment ?? 'sandbox';
  const input = options.input ?? {};
  const direction = await checkRun({ ...options, input, environment });
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: false });
  const id = runId({ ...options, connectionId: options.connection.id, input });
  const connection = connect(options.postgres, 'postgres');
  try {
    await assertMigrated(connection.pool);
    const db = database(connection.pool);
    const {
      run,
      enqueue: queueIt,
      fresh,
    } = await recordSubmission(db, {
      id,
      connector: options.connector,
      action: options.action,
      connectionId: options.connection.id,
      direction,
      correlationId: options.correlationId ?? randomUUID(),
      idempotencyKey: options.idempotencyKey ?? null,
    });
    const trace = traceCarrier();
    // Watching starts before the job is queued, so the follower misses no page.
    const watch = options.follow && !hasEnded(run.status) ? await watchRun(redis, db, run, options.follow) : undefined;
    if (queueIt) {
      await enqueue(redis, direction, {
        runId: id,
        attempt: run.retryCount,
        connector: options.connector,
        action: options.action,
        connection: options.connection,
        environment,
        input,
        ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
        ...(options.approval ? { approval: options.approval } : {}),
        ...(trace ? { trace } : {}),
      }).catch(async (error) => {
        await watch?.close();
        throw error;
      });
    }
    const submission = { id, queued: fresh };
    return options.follow ? { ...submission, run: await ended(watch, run) } : submission;
  } finally {
    await release(connection);
  }
}
