import { type Clock, systemClock } from '../clock.js';
import { PERIOD_MS, type RateBudget } from '../definition/connector.js';
import type { Budget } from './budget-rules.js';
import { LocalBudget } from './local-budget.js';
import { type BudgetBackend, type BudgetKey, SharedBudget } from './shared-budget.js';

/**
 * The budgets of one transport, keyed by (connector, connection, budget name).
 * With a backend (Redis) each budget's state and limiter are shared with every
 * other process on that backend; without one they are this process's own.
 */
export class BudgetRegistry {
  private readonly budgets = new Map<string, Budget>();

  constructor(
    private readonly backend?: BudgetBackend,
    private readonly clock: Clock = systemClock,
  ) {}

  get(connectorKey: string, connectionId: string, name: string, declared: RateBudget | undefined): Budget {
    const owner = declared?.scope === 'connector' ? '*' : connectionId;
    const id = `plugboard:${connectorKey}:${owner}:${name}`;
    let budget = this.budgets.get(id);
    if (!budget) {
      budget = this.make({ id, connectorKey, owner, name }, declared);
      this.budgets.set(id, budget);
    }
    return budget;
  }

  private make(key: BudgetKey, declared: RateBudget | undefined): Budget {
    const label = `${key.connectorKey}/${key.name}`;
    const periodMs = declared ? PERIOD_MS[declared.per] : undefined;
    const backend = this.backend;
    if (!backend) return new LocalBudget(label, declared?.limit, periodMs, declared?.maxConcurrent, this.clock);
    return new SharedBudget(label, declared?.limit, periodMs, declared?.maxConcurrent, backend.state(key), this.clock);
  }

  /** Stops every budget (waiting requests are dropped), then disconnects the backend. */
  async stop(): Promise<void> {
    await Promise.all([...this.budgets.values()].map((budget) => budget.stop()));
    this.budgets.clear();
    await this.backend?.close();
  }
}
