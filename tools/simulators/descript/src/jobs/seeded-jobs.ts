import type { JobRecord } from './job-store.js';
import { CREDITS_BY_COST, AVAILABLE_MODELS } from './agent-models.js';
import { agentResult, importResult, URL_FAILURE } from './results.js';
import { projectUrl } from '../drive/ids.js';
import { pick, sequence, mix, uuidFor } from '../util/prng.js';
import { DAY, MINUTE } from '../util/time.js';

/** Historical jobs of a seeded drive: stopped jobs spread over the 30 days GET /jobs can reach. */

const SALT_JOB = 61;
const MAX_SEEDED_JOBS = 40;
const PROMPTS = [
  'add studio sound to every clip',
  'remove all filler words',
  'create a 30-second highlight reel',
  'add captions',
];

export function seedJobs(
  seed: number,
  size: number,
  anchorMs: number,
  projectIdOf: (ordinal: number) => string,
): JobRecord[] {
  const count = Math.min(MAX_SEEDED_JOBS, size);
  const window = 29.5 * DAY - 20 * MINUTE;
  const jobs: JobRecord[] = [];
  for (let k = 0; k < count; k++) {
    const next = sequence(mix(seed, k, SALT_JOB));
    const createdAtMs = Math.floor((anchorMs - 29.5 * DAY + ((k + next()) / count) * window) / 1000) * 1000;
    const projectId = projectIdOf(Math.floor(next() * size));
    const common = {
      id: uuidFor(seed, k, SALT_JOB),
      projectId,
      projectUrl: projectUrl(projectId),
      createdAtMs,
      durationMs: Math.floor((1 + next() * 14) * MINUTE),
    };
    if (next() < 0.6) {
      const roll = next();
      const ok = roll >= 0.1;
      const items = [
        { path: 'interview.mp4', ok, seconds: Math.round(60 + next() * 1800), billable: true },
        {
          path: 'b-roll.mp4',
          ok: roll >= 0.3,
          ...(roll >= 0.3 ? { seconds: Math.round(10 + next() * 120) } : { error: URL_FAILURE }),
          billable: true,
        },
      ];
      jobs.push({
        ...common,
        type: 'import/project_media',
        steps: ['Importing media'],
        result: importResult(items, []),
      });
    } else {
      const model = pick(AVAILABLE_MODELS, next());
      jobs.push({
        ...common,
        type: 'agent',
        steps: ['Applying edits'],
        result: agentResult({
          ok: next() >= 0.2,
          prompt: pick(PROMPTS, next()),
          projectChanged: true,
          creditsUsed: CREDITS_BY_COST[model.cost],
          resolvedModel: model.id,
          conversationId: uuidFor(seed, k, SALT_JOB + 4),
        }),
      });
    }
  }
  return jobs;
}
