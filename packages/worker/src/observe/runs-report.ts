import { InvalidInputError, NotFoundError, excerpt } from '@plugboard/sdk';
import type pg from 'pg';
import { connect, type Database, database, release } from '../database.js';
import { READS_QUEUE, WRITES_QUEUE } from '../queue/jobs.js';
import { queueRedis, quietQueue, reachRedis } from '../queue/redis.js';
import { COLUMNS, type Run, type RunRow, type RunStatus, readRun, toRun } from '../queue/runs.js';

/**
 * What an operator reads of the runs: the rows of `plugboard_runs`, newest first, and one run with
 * what to check when a write was left `running` by a worker that stopped.
 */

const STATUSES: readonly RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
/** The most rows one listing returns. */
export const MAX_LISTED_RUNS = 1000;

export interface ListRunsOptions {
  postgres: string | pg.Pool;
  /** Only runs with this status. */
  status?: RunStatus;
  /** At most this many, newest first; default 50, at most 1000. */
  limit?: number;
}

function checkListing(options: ListRunsOptions): number {
  if (options.status !== undefined && !STATUSES.includes(options.status))
    throw new InvalidInputError('listRuns', [{ path: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTED_RUNS)
    throw new InvalidInputError('listRuns', [
      { path: 'limit', message: `must be a whole number from 1 to ${MAX_LISTED_RUNS}` },
    ]);
  return limit;
}

/** Opens the database for one call, and ends a pool made from a URL afterwards. */
export async function withDatabase<T>(postgres: string | pg.Pool, body: (db: Database) => Promise<T>): Promise<T> {
  const connection = connect(postgres, 'postgres');
  try {
    return await body(database(connection.pool));
  } finally {
    await release(connection);
  }
}

/** The runs, newest first. */
export async function listRuns(options: ListRunsOptions): Promise<Run[]> {
  const limit = checkListing(options);
  return withDatabase(options.postgres, async (db) => {
    const { rows } = await db.query<RunRow>(
      `SELECT ${COLUMNS} FROM plugboard_runs WHERE ($1::text IS NULL OR status = $1)
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      [options.status ?? null, limit],
    );
    return rows.map(toRun);
  });
}

/** A run's row, or a `NotFoundError` (`run_unknown`) naming the id, cut to 200 characters. */
export async function requireRun(db: Database, id: string): Promise<Run> {
  if (typeof id !== 'string' || id === '') throw new InvalidInputError('run', [{ path: 'id', message: 'is required' }]);
  const run = await readRun(db, id);
  if (!run) throw new NotFoundError(`no run has id ${JSON.stringify(excerpt(id))}`, { code: 'run_unknown' });
  return run;
}

export interface ShowRunOptions {
  postgres: string | pg.Pool;
  id: string;
  /** The queue's Redis: with it, a running run whose job is gone is known to be left by a stopped worker. */
  redis?: string;
}

/** A run, and what an operator must check when nothing is running it any more. */
export interface RunReport extends Run {
  /** Set when the run needs an operator: a write left `running` by a worker that stopped. */
  attention?: string;
}

/** What to do about a write whose worker stopped while the provider may have acted. */
export function leftRunningAdvice(run: Run): string {
  const check = 'the provider may have acted: check on the provider whether the write happened';
  if (run.idempotencyKey === null)
    return `its worker stopped while this write ran and ${check}, then submit it again only if it did not`;
  const key = JSON.stringify(run.idempotencyKey);
  return (
    `its worker stopped while this write ran and ${check}; ` +
    `plugboard idempotency show ${key} --postgres URL says what is kept under its key, and ` +
    `plugboard idempotency settle ${key} --as succeeded|failed --by NAME --reason TEXT --postgres URL records what the provider shows`
  );
}

/** Whether a worker still holds the run's job: none does once a write's worker stopped (its job failed as stalled). */
async function heldByWorker(redisUrl: string, run: Run): Promise<boolean> {
  const redis = queueRedis(redisUrl);
  await reachRedis(redis, { workers: false });
  const queue = quietQueue(run.direction === 'source' ? READS_QUEUE : WRITES_QUEUE, redis.connection);
  try {
    const job = await queue.getJob(run.id);
    return job !== undefined && (await job.getState()) === 'active';
  } finally {
    await queue.close();
  }
}

/** One run; a write left `running` with no worker holding it says what to check (`attention`). */
export async function showRun(options: ShowRunOptions): Promise<RunReport> {
  const run = await withDatabase(options.postgres, (db) => requireRun(db, options.id));
  if (run.status !== 'running' || run.direction !== 'destination' || options.redis === undefined) return run;
  if (await heldByWorker(options.redis, run)) return run;
  return { ...run, attention: leftRunningAdvice(run) };
}
