import { CREDITS_BY_COST, resolveModel } from './agent-models.js';
import type { JobTiming } from './imports.js';
import type { JobRecord } from './job-store.js';
import { agentResult } from './results.js';
import type { Drive } from '../drive/drive.js';
import { compositionShortId, projectUrl } from '../drive/ids.js';
import { requireComposition } from '../drive/compositions.js';
import { spendAiCredits } from '../drive/quotas.js';
import type { Drives } from '../drive/registry.js';
import { forbidden, invalidInput, notFound } from '../errors.js';
import { optionalString, requiredString, type Fields } from '../util/fields.js';
import { uuidFor } from '../util/prng.js';

/**
 * POST /jobs/agent: checks the request as the provider documents it, charges AI credits and
 * queues the job. A prompt containing "fail" makes the agent fail (error
 * `agent_execution_failed`); a prompt ending in "?" is answered without changing the project.
 */

const SALT_AGENT = 81;

export function startAgentEdit(drives: Drives, drive: Drive, body: Fields, timing: JobTiming): Record<string, unknown> {
  const prompt = requiredString(body, 'prompt').trim();
  if (prompt === '') throw invalidInput('Prompt cannot be empty');
  const projectId = optionalString(body, 'project_id');
  const projectName = optionalString(body, 'project_name');
  if ((projectId === undefined) === (projectName === undefined))
    throw invalidInput('Provide exactly one of project_id or project_name');
  const compositionId = optionalString(body, 'composition_id');
  const conversationId = optionalString(body, 'conversation_id');
  if (projectId === undefined && compositionId !== undefined) throw invalidInput('composition_id requires project_id');
  if (projectId === undefined && conversationId !== undefined)
    throw invalidInput('conversation_id requires project_id');
  if (projectId !== undefined && body['team_access'] !== undefined)
    throw invalidInput('team_access is only allowed with project_name');
  const requestedModel = optionalString(body, 'model') ?? 'auto';
  const model = resolveModel(requestedModel);
  if (!model) throw invalidInput(`Unknown model '${requestedModel}'; GET /agent/models lists the models and aliases`);
  if (drive.agentDisabled) throw forbidden('Agent usage has been disabled by your admin');

  const existing = projectId === undefined ? undefined : drive.projects.detail(drives.requireProject(drive, projectId));
  if (existing && compositionId !== undefined) requireComposition(existing, compositionId);
  if (existing && conversationId !== undefined) {
    const owner = drive.conversations.get(conversationId.toLowerCase());
    if (owner === undefined) throw notFound(`Conversation ${conversationId} not found`);
    if (owner !== existing.id) throw invalidInput(`Conversation ${conversationId} belongs to a different project`);
  }

  const credits = CREDITS_BY_COST[model.cost];
  spendAiCredits(drive, credits);
  const project =
    existing ??
    drive.projects.create({ name: projectName ?? '', createdBy: drive.members[0]?.id ?? '', nowMs: timing.nowMs });
  const jobNumber = drive.jobs.count;
  const conversation = conversationId?.toLowerCase() ?? uuidFor(drive.seed, jobNumber, SALT_AGENT + 1);
  drive.conversations.set(conversation, project.id);

  const ok = !/fail/i.test(prompt);
  const projectChanged = ok && !prompt.endsWith('?');
  // An agent asked to work on an empty project builds a first composition for it.
  const newComposition =
    projectChanged && project.compositions.length === 0
      ? {
          id: uuidFor(drive.seed, jobNumber, SALT_AGENT + 2),
          name: 'Agent edit',
          duration: 30,
          mediaType: 'video' as const,
        }
      : undefined;
  const job: JobRecord = {
    id: uuidFor(drive.seed, jobNumber, SALT_AGENT),
    type: 'agent',
    projectId: project.id,
    projectUrl: projectUrl(project.id),
    ...(newComposition ? { stoppedProjectUrl: projectUrl(project.id, compositionShortId(newComposition.id)) } : {}),
    createdAtMs: timing.nowMs,
    durationMs: timing.durationMs,
    steps: ['Reading the project', 'Planning the edit', 'Applying edits'],
    result: agentResult({
      ok,
      prompt,
      projectChanged,
      creditsUsed: credits,
      resolvedModel: model.resolvedModel,
      conversationId: conversation,
    }),
    effect: (stoppedAtMs) => {
      if (!projectChanged) return;
      drive.projects.change(project.ordinal, stoppedAtMs, (changed) => {
        if (newComposition) changed.compositions.push(newComposition);
      });
    },
  };
  drive.jobs.add(job);
  return {
    job_id: job.id,
    drive_id: drive.id,
    drive_name: drive.name,
    project_id: project.id,
    project_url: job.projectUrl,
    conversation_id: conversation,
    resolved_model: model.resolvedModel,
  };
}
