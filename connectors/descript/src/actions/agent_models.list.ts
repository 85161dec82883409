import { defineAction, SchemaMismatchError, zodIssues } from '@plugboard/sdk';
import { z } from 'zod';
import { AgentModel } from '../entities.js';

const Answer = z.object({
  availableModels: z.array(z.looseObject({ id: z.string() })),
  aliases: z.array(z.looseObject({ id: z.string() })),
});

export const agentModelsList = defineAction({
  key: 'agent_models.list',
  label: 'List agent models',
  description:
    'Models and aliases agent_edits.create accepts as `model`, with their relative cost tiers (GET /agent/models): one record per model (kind `model`) and per alias (kind `alias`, with resolvesTo).',
  direction: 'source',
  entity: AgentModel,
  input: z.strictObject({}),
  async *read(ctx) {
    const answer = await ctx.http.request({ method: 'GET', path: '/agent/models' });
    const parsed = Answer.safeParse(answer.data);
    if (!parsed.success)
      throw new SchemaMismatchError('descript agent_models.list', zodIssues(parsed.error), {
        requestId: answer.requestId,
      });
    yield {
      records: [
        ...parsed.data.availableModels.map((model) => ({ ...model, kind: 'model' as const })),
        ...parsed.data.aliases.map((alias) => ({ ...alias, kind: 'alias' as const })),
      ] as z.input<typeof AgentModel>[],
    };
  },
});
