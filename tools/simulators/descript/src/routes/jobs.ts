import { decodeCursor, encodeCursor } from '../drive/cursor.js';
import { invalidInput } from '../errors.js';
import { startAgentEdit } from '../jobs/agent-edits.js';
import { startImport } from '../jobs/imports.js';
import type { JobType } from '../jobs/job-store.js';
import { jobView } from '../jobs/job-view.js';
import { enumParam, instantParam, limitParam } from '../http/query.js';
import { json, type Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';
import { DAY, MINUTE } from '../util/time.js';

/** GET /jobs, GET /jobs/{job_id}, and the two job-starting POSTs. */

const JOB_TYPES: readonly JobType[] = ['import/project_media', 'agent'];
const DEFAULT_LOOKBACK_MS = 7 * DAY;
const MAX_LOOKBACK_MS = 30 * DAY;
/** Slack for clients that compute "30 days ago" a moment before the request arrives. */
const LOOKBACK_GRACE_MS = MINUTE;

export const jobRoutes: Route[] = [
  { method: 'GET', path: '/jobs', handle: listJobsRoute },
  {
    method: 'GET',
    path: '/jobs/{job_id}',
    handle: ({ drive, drives, params, nowMs }: RouteContext): Reply =>
      json(200, jobView(drives.requireJob(drive, params['job_id'] ?? ''), drive.id, nowMs)),
  },
  {
    method: 'POST',
    path: '/jobs/import/project_media',
    handle: ({ drive, drives, body, nowMs, jobDurationMs }: RouteContext): Reply =>
      json(201, startImport(drives, drive, body ?? {}, { nowMs, durationMs: jobDurationMs })),
  },
  {
    method: 'POST',
    path: '/jobs/agent',
    handle: ({ drive, drives, body, nowMs, jobDurationMs }: RouteContext): Reply =>
      json(201, startAgentEdit(drives, drive, body ?? {}, { nowMs, durationMs: jobDurationMs })),
  },
];

function listJobsRoute({ drive, query, nowMs }: RouteContext): Reply {
  const createdAfter = instantParam(query, 'created_after') ?? nowMs - DEFAULT_LOOKBACK_MS;
  if (createdAfter < nowMs - MAX_LOOKBACK_MS - LOOKBACK_GRACE_MS)
    throw invalidInput('created_after must be within the last 30 days');
  const createdBefore = instantParam(query, 'created_before') ?? nowMs;
  const cursorText = query.get('cursor');
  let after: { createdAtMs: number; id: string } | undefined;
  if (cursorText !== null) {
    const { c, i } = decodeCursor(cursorText) ?? {};
    if (typeof c !== 'number' || typeof i !== 'string') throw invalidInput('cursor is not valid');
    after = { createdAtMs: c, id: i };
  }
  const projectId = query.get('project_id') ?? undefined;
  const type = enumParam(query, 'type', JOB_TYPES);
  const { jobs, more } = drive.jobs.list({
    ...(projectId !== undefined ? { projectId } : {}),
    ...(type !== undefined ? { type } : {}),
    createdAfter,
    createdBefore,
    ...(after ? { after } : {}),
    limit: limitParam(query, 20),
  });
  const last = jobs.at(-1);
  return json(200, {
    data: jobs.map((job) => jobView(job, drive.id, nowMs)),
    pagination: more && last ? { next_cursor: encodeCursor({ c: last.createdAtMs, i: last.id }) } : {},
  });
}
