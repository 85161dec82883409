import type { Queue } from 'bullmq';
import { READS_QUEUE, type RunJob, WRITES_QUEUE } from './jobs.js';
import { type CallerQueue, callerQueue, type QueueRedis, reachRedis } from './redis.js';
import type { Run } from './runs.js';

/**
 * A submitter's two queues, reads and writes, each made on first use over a connection of its
 * own. Once Redis failed a call (`lost`), both are ended, and Redis is reached again before the
 * next are made, so a run submitted while it is still away fails typed, saying why.
 */
export interface RunQueues {
  /** The queue of that kind of run: a `QueueUnavailableError` when Redis, lost before, is still away. */
  of(direction: Run['direction']): Promise<Queue<RunJob>>;
  /** Redis failed a call: the queues are ended. */
  lost(): void;
  close(): Promise<void>;
}

export function runQueues(redis: QueueRedis): RunQueues {
  const queues = new Map<Run['direction'], CallerQueue<RunJob>>();
  const ending = new Set<Promise<void>>();
  let reached: Promise<void> | undefined = Promise.resolve();
  const reach = () => {
    reached ??= reachRedis(redis, { workers: false }).catch((error: unknown) => {
      reached = undefined;
      throw error;
    });
    return reached;
  };
  const endAll = () => {
    for (const queue of queues.values()) {
      const ended = queue.end();
      ending.add(ended);
      void ended.finally(() => ending.delete(ended));
    }
    queues.clear();
  };
  return {
    async of(direction) {
      await reach();
      let found = queues.get(direction);
      if (!found) {
        found = callerQueue<RunJob>(direction === 'source' ? READS_QUEUE : WRITES_QUEUE, redis);
        queues.set(direction, found);
      }
      return found.queue;
    },
    lost() {
      reached = undefined;
      endAll();
    },
    async close() {
      endAll();
      await Promise.all(ending);
    },
  };
}
