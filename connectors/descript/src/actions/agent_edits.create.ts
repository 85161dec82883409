import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { TEAM_ACCESS } from '../contract.js';
import { aboutProject } from '../errors.js';
import { JobReceipt } from '../entities.js';
import { checkProjectChoice, providerId } from '../inputs.js';
import { modelChoices, projectChoices } from '../options.js';

const Input = z
  .strictObject({
    prompt: z
      .string()
      .trim()
      .min(1, { error: 'prompt must not be empty' })
      .describe('What the agent should do, e.g. "add studio sound to every clip"'),
    project_id: providerId('Edit this existing project (or give project_name)').optional(),
    project_name: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('Create a new project with this name (or give project_id)'),
    composition_id: providerId(
      'With project_id: the composition to edit (id, 5-character short id or project URL)',
    ).optional(),
    conversation_id: providerId('With project_id: continue this earlier conversation').optional(),
    model: z.string().trim().min(1).optional().describe('A model or alias of agent_models.list (default auto)'),
    team_access: z
      .enum(TEAM_ACCESS)
      .optional()
      .describe('With project_name: access of drive members to the new project (provider default none)'),
  })
  .superRefine((input, ctx) =>
    checkProjectChoice(input, ctx, { existing: ['composition_id', 'conversation_id'], created: ['team_access'] }),
  )
  .meta({ examples: [{ prompt: 'Remove filler words and add studio sound', project_name: 'Edited interview' }] });

export const agentEditsCreate = defineAction({
  key: 'agent_edits.create',
  label: 'Run an agent edit',
  description:
    "Runs the provider's agent on a project, or creates one, from a natural-language instruction (POST /jobs/agent); returns the job to poll with jobs.get and the conversation id to continue it. Spends AI credits: billable, never retried automatically, approval before production.",
  direction: 'destination',
  // Edits the project in place (or creates one): what the agent changes replaces what was there.
  effect: { writes: true, idempotent: false, destructive: true },
  entity: JobReceipt,
  billable: true,
  input: Input,
  options: { project_id: projectChoices, model: modelChoices },
  async write(ctx, input) {
    const start = () => ctx.http.post<z.input<typeof JobReceipt>>('/jobs/agent', input);
    return input.project_id === undefined ? start() : aboutProject(input.project_id, start);
  },
});
