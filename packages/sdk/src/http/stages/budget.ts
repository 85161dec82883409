import { budgetOf } from '../../catalogue-entry.js';
import { RateLimitedError } from '../../errors.js';
import type { Budget } from '../budget-rules.js';
import { events } from '../events.js';
import { type ClientSettings, maxWaitMsOf, timeoutMsOf } from '../settings.js';
import type { Send } from './stage.js';

/**
 * The rate budget: a call waits its turn (on the transport's clock), a wait longer than the
 * action accepts fails at once, and every answer tells the budget whether to pause. The call
 * carries the budget's write gate down to the transport: a request let in before a pause
 * began is held back when its connection is ready, and waits its turn again.
 */
export function budget(settings: ClientSettings, next: Send): Send {
  const { connector, action, connectionId, transport, signal } = settings;
  const maxWaitMs = maxWaitMsOf(action);
  const timeoutMs = timeoutMsOf(action);
  const clock = transport.clock;
  // An undeclared budget still exists: a 429 must pause the requests that share it.
  const defaultName = budgetOf(connector, action) ?? 'default';
  // Most runs draw on one budget: it is looked up once, others (rare) each time.
  let defaultBudget: Budget | undefined;
  const budgetFor = (name: string): Budget => {
    if (name === defaultName)
      return (defaultBudget ??= transport.budgets.get(connector.key, connectionId, name, connector.rateLimits[name]));
    return transport.budgets.get(connector.key, connectionId, name, connector.rateLimits[name]);
  };
  return (call) => {
    const name = call.budget ?? defaultName;
    const chosen = budgetFor(name);
    if (!events.budgetWait.hasSubscribers && !events.refused.hasSubscribers) {
      return chosen.run(
        (open) => {
          call.open = open;
          return next(call);
        },
        signal,
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
            events.budgetWait.publish({ connector: connector.key, action: action.key, budget: name, waitMs });
          sent = true;
          call.open = open;
          return next(call);
        },
        signal,
        maxWaitMs,
        timeoutMs,
      )
      .catch((error: unknown) => {
        if (!sent && error instanceof RateLimitedError && events.refused.hasSubscribers) {
          events.refused.publish({
            connector: connector.key,
            action: action.key,
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
