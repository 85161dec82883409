import type { Clock } from '../../clock.js';
import { RateLimitedError } from '../../errors.js';
import type { Budget } from '../budget-rules.js';
import { events } from '../events.js';
import type { Send, StageAbout } from './stage.js';

/** What the budget stage uses: where the connection's budgets are found, and how long the action waits. */
export interface BudgetOptions {
  /** The connection's budget of this name (the transport's registry: a budget declared or not). */
  budgetFor(name: string): Budget;
  /** The budget a call that names none draws on. */
  defaultBudget: string;
  /** The longest wait for a turn or a pause the action accepts: a longer one fails at once. */
  maxWaitMs: number;
  /** The bound of one send: a shared budget forgets a request whose process died after it. */
  timeoutMs: number;
  /** The transport's clock: the turn is waited on it. */
  clock: Clock;
  about: StageAbout;
}

/**
 * The rate budget: a call waits its turn (on the transport's clock), a wait longer than the
 * action accepts fails at once, and every answer tells the budget whether to pause. The call
 * carries the budget's write gate down to the transport: a request let in before a pause
 * began is held back when its connection is ready, and waits its turn again. A call's own
 * signal (the run's cancel) ends its wait.
 */
export function budget(options: BudgetOptions, next: Send): Send {
  const { budgetFor, defaultBudget, maxWaitMs, timeoutMs, clock, about } = options;
  // Most calls draw on one budget: it is looked up once, others (rare) each time.
  let chosenDefault: Budget | undefined;
  return (call) => {
    const name = call.budget ?? defaultBudget;
    const chosen = name === defaultBudget ? (chosenDefault ??= budgetFor(name)) : budgetFor(name);
    if (!events.budgetWait.hasSubscribers && !events.refused.hasSubscribers) {
      return chosen.run(
        (open) => {
          call.open = open;
          return next(call);
        },
        call.signal,
        maxWaitMs,
        timeoutMs,
      );
    }
    // Someone listens: the wait is measured, and a refusal before sending told.
    const asked = clock.now();
    let sent = false;
    return chosen
      .run(
        (open) => {
          const waitMs = clock.now() - asked;
          if (!sent && waitMs > 0 && events.budgetWait.hasSubscribers)
            events.budgetWait.publish({ ...about, budget: name, waitMs });
          sent = true;
          call.open = open;
          return next(call);
        },
        call.signal,
        maxWaitMs,
        timeoutMs,
      )
      .catch((error: unknown) => {
        if (!sent && error instanceof RateLimitedError && events.refused.hasSubscribers) {
          events.refused.publish({
            ...about,
            operation: call.operation,
            reason: 'budget',
            code: error.code,
            waitMs: error.retryAfterMs,
          });
        }
        throw error;
      });
  };
}
