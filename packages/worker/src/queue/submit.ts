import { randomUUID } from 'node:crypto';
import { type ApprovalDecision, type Environment, InvalidInputError } from '@plugboard/sdk';
import type { ExecutorOptions, HostConnection } from '@plugboard/sdk/host';
import type pg from 'pg';
import { connect, type Database, database, release } from '../database.js';
import { assertMigrated } from '../migrations.js';
import { traceCarrier } from '../observe/tracing.js';
import { type FollowHandlers, type Watch, watchRun } from './follow.js';
import { type RunJob, runId } from './jobs.js';
import { QueueUnavailableError } from './errors.js';
import { type QueueRedis, queueRedis, reachRedis } from './redis.js';
import { type RunQueues, runQueues } from './run-queues.js';
import { hasEnded, type Run, recordSubmission } from './runs.js';
import { checkRun } from './validation.js';

/** Where runs are queued and recorded. */
export interface SubmitterOptions {
  /** The queue's Redis: `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  redis: string;
  /** The runs' PostgreSQL: a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
}

/** One run to queue. */
export interface RunSubmission {
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
  /**
   * The run's id (and its job's), when the caller named the run already, as a trigger's delivery
   * does with its execution id: letters, digits, `_ . -`, at most 128. Default: derived as below.
   */
  runId?: string;
  approval?: ApprovalDecision;
  /** The platform's correlation id; default a new UUID. */
  correlationId?: string;
  /** Follows the run until it ends (pages and progress from the moment it is queued); the answer then holds its row. */
  follow?: FollowHandlers;
}

export interface SubmitRunOptions extends SubmitterOptions, RunSubmission {}

/** Queues runs over connections it keeps: Redis reached and the schema checked once, one BullMQ queue per kind of run. */
export interface Submitter {
  /** Checks the run as `submitRun` does, then records and queues it. */
  submit(run: RunSubmission): Promise<Submission>;
  /** Closes its queues, and its PostgreSQL pool when it opened one. */
  close(): Promise<void>;
}

/** What a submission did: the run's id, and whether this call queued it (false: it was queued, running or done already). */
export interface Submission {
  id: string;
  queued: boolean;
  /** With `follow`: the run's row once it ended. */
  run?: Run;
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

/** A run id a caller gives: it is a BullMQ job id and a row's key, so plain and bounded. */
const RUN_ID = /^[A-Za-z0-9_.-]{1,128}$/;

function checkRunId(id: unknown): void {
  if (typeof id !== 'string' || !RUN_ID.test(id))
    throw new InvalidInputError('run', [{ path: 'runId', message: 'must be 1 to 128 letters, digits, _ . or -' }]);
}

/** What a submitter holds once it first submits: the queue's Redis, the runs' database, the queues. */
interface Open {
  redis: QueueRedis;
  db: Database;
  queues: RunQueues;
  close(): Promise<void>;
}

/** Reaches Redis and checks the schema (a URL given opens a pool of its own, ended on failure). */
async function open(options: SubmitterOptions): Promise<Open> {
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: false });
  const connection = connect(options.postgres, 'postgres');
  try {
    await assertMigrated(connection.pool);
  } catch (error) {
    await release(connection);
    throw error;
  }
  const queues = runQueues(redis);
  const close = async () => {
    await queues.close();
    await release(connection);
  };
  return { redis, db: database(connection.pool), queues, close };
}

/** Records the checked run and puts its job on its queue under the run's id (the same id twice is one job: BullMQ keeps the first). */
async function queueRun(opened: Open, run: RunSubmission, direction: Run['direction'], environment: Environment) {
  const input = run.input ?? {};
  const id = run.runId ?? runId({ ...run, connectionId: run.connection.id, input });
  const { redis, db } = opened;
  const recorded = await recordSubmission(db, {
    id,
    connector: run.connector,
    action: run.action,
    connectionId: run.connection.id,
    direction,
    correlationId: run.correlationId ?? randomUUID(),
    idempotencyKey: run.idempotencyKey ?? null,
  });
  const trace = traceCarrier();
  // Watching starts before the job is queued, so the follower misses no page.
  const watch =
    run.follow && !hasEnded(recorded.run.status) ? await watchRun(redis, db, recorded.run, run.follow) : undefined;
  if (recorded.enqueue) {
    const job: RunJob = {
      runId: id,
      attempt: recorded.run.retryCount,
      connector: run.connector,
      action: run.action,
      connection: run.connection,
      environment,
      input,
      ...(run.idempotencyKey !== undefined ? { idempotencyKey: run.idempotencyKey } : {}),
      ...(run.approval ? { approval: run.approval } : {}),
      ...(trace ? { trace } : {}),
    };
    const options = { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: 1 };
    try {
      await (await opened.queues.of(direction)).add(run.action, job, options);
    } catch (error) {
      await watch?.close();
      if (error instanceof QueueUnavailableError) throw error;
      opened.queues.lost();
      // The row stays queued: submitting the run again queues its job (see recordSubmission).
      throw new QueueUnavailableError(redis.server, error instanceof Error ? error.message : String(error), error);
    }
  }
  const submission = { id, queued: recorded.fresh };
  return run.follow ? { ...submission, run: await ended(watch, recorded.run) } : submission;
}

/**
 * A submitter that keeps its connections for the runs it queues (a scheduler's, a platform's):
 * nothing is reached before the first run passed its checks, so a bad run fails as it would
 * with no server; a failure to reach Redis or PostgreSQL is tried again on the next run.
 */
export function createSubmitter(options: SubmitterOptions): Submitter {
  let opening: Promise<Open> | undefined;
  const opened = () => {
    opening ??= open(options).catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  return {
    async submit(run) {
      const environment = run.environment ?? 'sandbox';
      if (run.runId !== undefined) checkRunId(run.runId);
      const direction = await checkRun({ ...run, input: run.input ?? {}, environment });
      return queueRun(await opened(), run, direction, environment);
    },
    async close() {
      const current = opening;
      opening = undefined;
      const found = await current?.catch(() => undefined);
      await found?.close();
    },
  };
}

/**
 * Checks the run as the executor would (nothing is queued nor recorded when it fails), records
 * it in `plugboard_runs` and queues it under its deterministic id: reads on one queue,
 * destinations on the writes queue. A run already queued, running or succeeded is not queued
 * again. One run over connections of its own; `createSubmitter` keeps them for many.
 */
export async function submitRun(options: SubmitRunOptions): Promise<Submission> {
  const { redis, postgres, ...run } = options;
  const submitter = createSubmitter({ redis, postgres });
  try {
    return await submitter.submit(run);
  } finally {
    await submitter.close();
  }
}
