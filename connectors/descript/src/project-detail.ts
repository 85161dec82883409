import { type ActionContext, SchemaMismatchError, zodIssues } from '@plugboard/sdk';
import { z } from 'zod';
import { aboutProject } from './errors.js';

/**
 * GET /projects/{project_id}: the one read behind projects.get, compositions.list,
 * media_files.list and publishes.list. The parts those actions take apart are checked here;
 * the rest passes through as the provider sends it.
 */

const Answer = z.looseObject({
  id: z.string().min(1),
  media_files: z.record(z.string(), z.looseObject({})),
  compositions: z.array(z.looseObject({})),
  publishes: z.array(z.looseObject({})),
});

export type ProjectAnswer = z.output<typeof Answer>;

export async function projectDetail(ctx: ActionContext, action: string, projectId: string): Promise<ProjectAnswer> {
  const answer = await aboutProject(projectId, () =>
    ctx.http.request({ method: 'GET', path: '/projects/{project_id}', params: { project_id: projectId } }),
  );
  const parsed = Answer.safeParse(answer.data);
  if (!parsed.success) {
    throw new SchemaMismatchError(`descript ${action}`, zodIssues(parsed.error), {
      status: answer.status,
      requestId: answer.requestId,
    });
  }
  return parsed.data;
}
