import { PERIOD_MS } from '@plugboard/sdk/host';
import type { CatalogueEntry, CatalogueOperation } from '../entry.js';
import type { ConnectorChange } from './rules.js';

/** The rate budget an operation declares, compared between two versions. */

type Budget = { limit: number; per: string; scope: string };

function budgetOf(entry: CatalogueEntry, operation: CatalogueOperation): Budget | undefined {
  const name = operation.rateBudget;
  if (name === undefined) return undefined;
  return (entry.rateLimits as Record<string, Budget> | undefined)?.[name];
}

function budgetText(budget: Budget | undefined): string {
  return budget === undefined ? 'none' : `${budget.limit} per ${budget.per} (${budget.scope ?? 'connection'})`;
}

function periodMs(per: string): number {
  return (PERIOD_MS as Record<string, number>)[per] ?? Number.POSITIVE_INFINITY;
}

/**
 * A budget tightens when a limit appears, the limit drops, the period grows, or
 * it becomes shared by the whole connector; it loosens the other way round.
 */
function compareBudgets(
  was: Budget | undefined,
  now: Budget | undefined,
): { kind: 'rate-budget-tightened' | 'rate-budget-loosened'; from: string; to: string } | undefined {
  const from = budgetText(was);
  const to = budgetText(now);
  if (from === to) return undefined;
  if (!was) return { kind: 'rate-budget-tightened', from, to };
  if (!now) return { kind: 'rate-budget-loosened', from, to };
  const tighter =
    now.limit < was.limit ||
    periodMs(now.per) > periodMs(was.per) ||
    ((was.scope ?? 'connection') === 'connection' && now.scope === 'connector');
  return { kind: tighter ? 'rate-budget-tightened' : 'rate-budget-loosened', from, to };
}

/** The rate budget change of an operation: tightened or loosened, from the budget's text to the other's. */
export function budgetChange(
  old: CatalogueEntry,
  was: CatalogueOperation,
  next: CatalogueEntry,
  now: CatalogueOperation,
): ConnectorChange | undefined {
  const budget = compareBudgets(budgetOf(old, was), budgetOf(next, now));
  if (!budget) return undefined;
  const at = now.key;
  const verb = budget.kind === 'rate-budget-tightened' ? 'tightened' : 'loosened';
  return {
    kind: budget.kind,
    operation: at,
    from: budget.from,
    to: budget.to,
    message: `operation '${at}' rate budget ${verb} from ${budget.from} to ${budget.to}`,
  };
}
