/** The agent model catalogue GET /agent/models answers, and what a requested model resolves to. */

export type CostTier = 'low' | 'medium' | 'high';

export const AVAILABLE_MODELS: ReadonlyArray<{ id: string; cost: CostTier }> = [
  { id: 'auto', cost: 'medium' },
  { id: 'claude-opus-5.5', cost: 'high' },
  { id: 'claude-sonnet-5.5', cost: 'medium' },
  { id: 'claude-haiku-5.5', cost: 'low' },
];

export const MODEL_ALIASES: ReadonlyArray<{ id: string; resolvesTo: string; description: string; cost: CostTier }> = [
  {
    id: 'claude-opus',
    resolvesTo: 'claude-opus-5.5',
    description: 'Tracks stable Anthropic Claude Opus',
    cost: 'high',
  },
  {
    id: 'claude-sonnet',
    resolvesTo: 'claude-sonnet-5.5',
    description: 'Tracks stable Anthropic Claude Sonnet',
    cost: 'medium',
  },
  {
    id: 'claude-haiku',
    resolvesTo: 'claude-haiku-5.5',
    description: 'Tracks stable Anthropic Claude Haiku',
    cost: 'low',
  },
];

/** AI credits an agent job needs before it may start, by cost tier. */
export const CREDITS_BY_COST: Record<CostTier, number> = { low: 25, medium: 50, high: 100 };

/** The canonical model and cost of a requested model or alias; `auto` stays `auto`, as the provider reports it. */
export function resolveModel(requested: string): { resolvedModel: string; cost: CostTier } | undefined {
  const model = AVAILABLE_MODELS.find((m) => m.id === requested);
  if (model) return { resolvedModel: model.id, cost: model.cost };
  const alias = MODEL_ALIASES.find((a) => a.id === requested);
  return alias ? { resolvedModel: alias.resolvesTo, cost: alias.cost } : undefined;
}
