import { InvalidInputError } from '@plugboard/sdk';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { connect, type Database, database, release } from '../database.js';
import { markFollowed } from './followed.js';
import { READS_QUEUE, type RunProgress, WRITES_QUEUE } from './jobs.js';
import { type QueueRedis, queueRedis, quietQueue, reachRedis } from './redis.js';
import { hasEnded, readRun, type Run } from './runs.js';

/**
 * Following a run: its pages and progress as the worker reports them (BullMQ's job progress
 * events), until its row says it ended. Events are read from the moment the follower starts:
 * `submitRun({ follow })` starts before the job is queued, so no page is missed.
 */

/** What a follower is told. */
export interface FollowHandlers {
  /** A page of records, as the worker acknowledged it; a destination's result is one page of one record. */
  onPage?(page: { index: number; records: unknown[] }): void;
  onProgress?(event: { label?: string; done?: number; total?: number }): void;
}

export interface FollowRunOptions extends FollowHandlers {
  redis: string;
  postgres: string | pg.Pool;
  /** The run's id, as `submitRun` answered it. */
  id: string;
}

/** The queue's events stream as it is now: where a follower starts reading. */
async function eventsTail(client: Redis, redis: QueueRedis, queueName: string): Promise<string> {
  const queue = quietQueue(queueName, redis.connection);
  try {
    const last = (await client.xrevrange(queue.keys.events!, '+', '-', 'COUNT', 1))[0];
    return last?.[0] ?? '0-0';
  } finally {
    await queue.close();
  }
}

/** Marks the run followed when the handlers take pages or progress (workers send them only then). */
async function followed(client: Redis, runId: string, handlers: FollowHandlers): Promise<() => void> {
  return handlers.onPage || handlers.onProgress ? await markFollowed(client, runId) : () => {};
}

/** The follower's mark (when it takes pages or progress) and the queue's events from now on; `stop` ends both. */
async function subscribe(
  redis: QueueRedis,
  queueName: string,
  runId: string,
  handlers: FollowHandlers,
): Promise<{ events: QueueEvents; stop(): Promise<void> }> {
  const client = new Redis(redis.connection.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  let unmark: () => void = () => {};
  try {
    // Marked before the tail is read: every page reported after the tail is reported to this follower.
    unmark = await followed(client, runId, handlers);
    const lastEventId = await eventsTail(client, redis, queueName);
    const events = new QueueEvents(queueName, { connection: redis.connection, lastEventId });
    const stop = async () => {
      unmark();
      client.disconnect();
      await events.close();
    };
    return { events, stop };
  } catch (error) {
    unmark();
    client.disconnect();
    throw error;
  }
}

/** A run being watched: `ended` resolves with its row once it ended. */
export interface Watch {
  ended: Promise<Run>;
  close(): Promise<void>;
}

/** Watches run `run` (its id, queue and attempt) from now on. */
export async function watchRun(
  redis: QueueRedis,
  db: Database,
  run: Pick<Run, 'id' | 'direction' | 'retryCount'>,
  handlers: FollowHandlers,
): Promise<Watch> {
  const name = run.direction === 'source' ? READS_QUEUE : WRITES_QUEUE;
  const { events, stop } = await subscribe(redis, name, run.id, handlers);
  events.on('error', () => {});
  let settle: (value: Run) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const ended = new Promise<Run>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  events.on('progress', ({ jobId, data }) => {
    const event = data as RunProgress;
    if (jobId !== run.id || typeof event !== 'object' || event?.attempt !== run.retryCount) return;
    if (event.type === 'page') handlers.onPage?.({ index: event.index, records: event.records });
    else handlers.onProgress?.(event);
  });
  // The row says whether the run ended: an event of an earlier attempt leaves it as it is.
  const check = () =>
    readRun(db, run.id).then((row) => {
      if (row && hasEnded(row.status)) settle(row);
    }, fail);
  events.on('completed', ({ jobId }) => jobId === run.id && void check());
  events.on('failed', ({ jobId }) => jobId === run.id && void check());
  // A queued run cancelled (`cancelRun`) leaves its queue without completing or failing.
  events.on('removed', ({ jobId }) => jobId === run.id && void check());
  await events.waitUntilReady();
  // It may have ended before the watch began.
  void check();
  return { ended, close: stop };
}

/** Waits for run `id` to end, telling `onPage` and `onProgress` what it does from now on; answers its row. */
export async function followRun(options: FollowRunOptions): Promise<Run> {
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: false });
  const connection = connect(options.postgres, 'postgres');
  try {
    const db = database(connection.pool);
    const run = await readRun(db, options.id);
    if (!run) throw new InvalidInputError('followRun', [{ path: 'id', message: 'names no run' }]);
    if (hasEnded(run.status)) return run;
    const watch = await watchRun(redis, db, run, options);
    try {
      return await watch.ended;
    } finally {
      await watch.close();
    }
  } finally {
    await release(connection);
  }
}
