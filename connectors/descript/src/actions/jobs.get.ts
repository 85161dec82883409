import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Job, type JobRecord } from '../entities.js';
import { providerId } from '../inputs.js';

export const jobsGet = defineAction({
  key: 'jobs.get',
  label: 'Get a job',
  description:
    'Status of an import, agent or publish job (GET /jobs/{job_id}): state, progress while running (also reported as run progress), per-file import results and the media seconds and AI credits used once stopped. Poll it after media_imports.create or agent_edits.create.',
  direction: 'source',
  entity: Job,
  input: z.strictObject({ job_id: providerId('The job id') }),
  async *read(ctx, input) {
    const job = await ctx.http.get<JobRecord>('/jobs/{job_id}', { params: { job_id: input.job_id } });
    if (job?.job_state === 'running' || job?.job_state === 'queued') {
      const label = job.progress?.label ?? job.job_state;
      ctx.progress({ label, ...(typeof job.progress?.percent === 'number' ? { percent: job.progress.percent } : {}) });
    }
    yield { records: [job] };
  },
});
