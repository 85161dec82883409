import type { FieldOptions } from '@plugboard/sdk';
import type { z } from 'zod';
import type { AgentModel, ProjectRecord } from './entities.js';

/**
 * What the ids the destinations take are picked from. A project is searched by name at the
 * provider (GET /projects?name=, case-insensitive), most recently updated first, a page of 50 at
 * a time; the models are one short list, which the SDK filters by label.
 */

export const projectChoices: FieldOptions<string> = {
  from: "the drive's projects, searched by name",
  searchable: true,
  async list(ctx, { search, cursor }) {
    const page = await ctx.http.get<{ data: ProjectRecord[]; pagination?: { next_cursor?: string } }>('/projects', {
      query: { name: search || undefined, cursor, limit: 50, sort: 'updated_at', direction: 'desc' },
    });
    const next = page.pagination?.next_cursor;
    return {
      items: page.data.map((project) => ({
        value: project.id,
        label: project.name,
        ...(project.folder_path ? { description: project.folder_path } : {}),
      })),
      ...(next ? { nextCursor: next } : {}),
    };
  },
};

type ModelRecord = z.input<typeof AgentModel>;

export const modelChoices: FieldOptions<string> = {
  from: 'the agent models and aliases (GET /agent/models)',
  async list(ctx) {
    const answer = await ctx.http.get<{ availableModels?: ModelRecord[]; aliases?: ModelRecord[] }>('/agent/models');
    const about = (model: ModelRecord) => [`${model.cost} cost`, model.description].filter(Boolean).join('; ');
    return {
      items: [...(answer.availableModels ?? []), ...(answer.aliases ?? [])].map((model) => ({
        value: model.id,
        label: model.id,
        description: about(model),
      })),
    };
  },
};
