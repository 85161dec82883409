import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { DAY_MS, JOB_HISTORY, JOB_TYPES } from '../contract.js';
import { Job, type JobRecord } from '../entities.js';
import { pageLimit, providerId, timestamp } from '../inputs.js';
import { cursorPages } from '../paging.js';
import { resumeFrom, seenIds, Watermark } from '../watermark.js';

/** Where the next run resumes: the newest created_at read, and the ids read at exactly that instant. */
const JobsCheckpoint = z.strictObject({ created_after: z.iso.datetime({ offset: true }), seen_ids: seenIds });
type JobsCheckpoint = z.output<typeof JobsCheckpoint>;

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
    incremental: { cursorField: 'created_at', checkpoint: JobsCheckpoint },
    async *read(ctx, input) {
      const now = clock();
      const oldest = now - JOB_HISTORY.maxDays * DAY_MS + CLOCK_MARGIN_MS;
      let start: JobsCheckpoint | undefined =
        ctx.checkpoint ?? (input.created_after ? { created_after: input.created_after, seen_ids: [] } : undefined);
      if (start && Date.parse(start.created_after) < oldest) {
        ctx.log.warn(
          `jobs.list: ${start.created_after} is older than the provider's ${JOB_HISTORY.maxDays}-day job history; reading from ${iso(oldest)} instead (older jobs can no longer be listed)`,
          { from: start.created_after, clampedTo: iso(oldest) },
        );
        start = { created_after: iso(oldest), seen_ids: [] };
      }
      const windowStart = start ? resumeFrom(start.created_after) : iso(now - JOB_HISTORY.defaultDays * DAY_MS);
      const mark = new Watermark(
        { subject: 'descript jobs.list', time: 'created_at', id: 'job_id', requestId: () => ctx.http.lastRequestId },
        start && { at: start.created_after, seen_ids: start.seen_ids },
      );
      const query = { project_id: input.project_id, type: input.type, created_after: windowStart, limit: input.limit };
      // Newest first: the checkpoint can only move on once the whole window has been read.
      for await (const page of cursorPages(ctx, 'jobs.list', '/jobs', query)) {
        const records = mark.keepNew(page.data);
        if (!page.last) {
          yield { records: records as JobRecord[] };
          continue;
        }
        const at = mark.mark ?? { at: start?.created_after ?? windowStart, seen_ids: [] };
        yield { records: records as JobRecord[], checkpoint: { created_after: at.at, seen_ids: at.seen_ids } };
      }
    },
  });
}

export const jobsList = jobsListAction();
