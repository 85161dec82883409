import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { DAY_MS, JOB_HISTORY, JOB_TYPES } from '../contract.js';
import { Job, type JobRecord } from '../entities.js';
import { pageLimit, providerId, timestamp } from '../inputs.js';
import { after, byCursor, timestampCheckpoint } from '../listing.js';

/**
 * The provider refuses `created_after` older than 30 days; the connector's clock and the
 * provider's differ by the request's travel time and more, so the oldest instant asked for
 * stays a minute inside the window.
 */
const CLOCK_MARGIN_MS = 60_000;

/** Milliseconds since the epoch; injectable so recordings and tests are repeatable. */
export type Clock = () => number;

const iso = (ms: number) => new Date(ms).toISOString();

export function jobsListAction(clock: Clock = Date.now) {
  return defineAction({
    key: 'jobs.list',
    label: 'List jobs',
    description:
      'Import and agent jobs (GET /jobs), newest first, every page: from the last 7 days by default, at most 30 days back. Incremental on created_at: the next run reads only jobs created since; a checkpoint older than 30 days is moved to 30 days ago with a warning in the log.',
    direction: 'source',
    entity: Job,
    input: z.strictObject({
      project_id: providerId('Only the jobs of this project').optional(),
      type: z.enum(JOB_TYPES).optional().describe('Only jobs of this type'),
      created_after: timestamp(
        'Where the first run starts (default 7 days ago, at most 30 days back); later runs start at their checkpoint',
      ).optional(),
      limit: pageLimit(100),
    }),
    incremental: {
      cursorField: 'created_at',
      tieBreaker: 'job_id',
      checkpoint: timestampCheckpoint('created_after'),
      newerThan: after('created_after'),
      order: 'newest-first',
    },
    paginator: byCursor,
    read(ctx, input) {
      const now = clock();
      const oldest = iso(now - JOB_HISTORY.maxDays * DAY_MS + CLOCK_MARGIN_MS);
      const from = ctx.checkpoint?.created_after ?? input.created_after;
      if (from && Date.parse(from) < Date.parse(oldest)) {
        ctx.log.warn(
          `jobs.list: ${from} is older than the provider's ${JOB_HISTORY.maxDays}-day job history; reading from ${oldest} instead (older jobs can no longer be listed)`,
          { from, clampedTo: oldest },
        );
      }
      // Without a start, the last days by default; with one, the SDK fills `created_after` in at its place.
      const created_after = from ? undefined : iso(now - JOB_HISTORY.defaultDays * DAY_MS);
      const query = { project_id: input.project_id, type: input.type, created_after, limit: input.limit };
      return ctx.pages<JobRecord>({ path: '/jobs', query }, { from: input.created_after, notBefore: oldest });
    },
  });
}

export const jobsList = jobsListAction();
