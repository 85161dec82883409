import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunJob, RunProgress } from './jobs.js';

/**
 * Pages and progress travel through Redis only while someone follows the run: a follower marks
 * the run followed (a key that lapses unless renewed), and the worker looks for the mark before
 * each report. A run nobody follows, the fleet's usual case, sends its records through Redis
 * never: they go to the sink or the row's counts, and Redis keeps no copy in its events stream.
 */

/** The mark of a followed run. */
export const followedKey = (runId: string): string => `plugboard:followed:${runId}`;

/** How long a follower's mark lasts without renewal; it renews it at a third of that. */
export const FOLLOWED_TTL_MS = 60_000;

/** Marks run `runId` followed until the answer is called. */
export async function markFollowed(client: Redis, runId: string): Promise<() => void> {
  const mark = () => client.set(followedKey(runId), '1', 'PX', FOLLOWED_TTL_MS);
  await mark();
  const renewal = setInterval(() => void mark().catch(() => {}), FOLLOWED_TTL_MS / 3);
  renewal.unref();
  return () => clearInterval(renewal);
}

/** How a worker reports run `job`: through BullMQ's job progress, when the run is followed. */
export function followedReport(worker: Worker<RunJob>, job: Job<RunJob>): (event: RunProgress) => Promise<void> {
  const key = followedKey(job.data.runId);
  return async (event) => {
    const client = await worker.getBackend().client;
    if ((await client.get(key)) !== null) await job.updateProgress(event);
  };
}
