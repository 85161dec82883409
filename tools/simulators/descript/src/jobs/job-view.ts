import type { JobRecord } from './job-store.js';
import { isoSeconds } from '../util/time.js';

/**
 * What GET /jobs/{id} answers for a job at a given instant: queued for the first tenth of its
 * duration, then running with progress, then stopped with its result.
 */

const QUEUED_SHARE = 0.1;

export function jobView(job: JobRecord, driveId: string, nowMs: number): Record<string, unknown> {
  const common = {
    job_id: job.id,
    job_type: job.type,
    created_at: isoSeconds(job.createdAtMs),
    drive_id: driveId,
    project_id: job.projectId,
  };
  const elapsed = nowMs - job.createdAtMs;
  const queuedMs = job.durationMs * QUEUED_SHARE;
  if (elapsed < queuedMs) return { ...common, job_state: 'queued', project_url: job.projectUrl };
  if (elapsed < job.durationMs) {
    const share = (elapsed - queuedMs) / (job.durationMs - queuedMs);
    const percent = Math.min(99, Math.floor(share * 100));
    // Progress is reported in tenths, like a worker that checks in periodically.
    const lastUpdateMs = job.createdAtMs + queuedMs + (Math.floor(share * 10) / 10) * (job.durationMs - queuedMs);
    const label = job.steps[Math.min(job.steps.length - 1, Math.floor(share * job.steps.length))] ?? 'Working';
    return {
      ...common,
      job_state: 'running',
      project_url: job.projectUrl,
      progress: { label, percent, last_update_at: isoSeconds(lastUpdateMs) },
    };
  }
  return {
    ...common,
    job_state: 'stopped',
    stopped_at: isoSeconds(job.createdAtMs + job.durationMs),
    project_url: job.stoppedProjectUrl ?? job.projectUrl,
    result: job.result,
  };
}
