import { Agent, Dispatcher1Wrapper, type Dispatcher } from 'undici';
import { BudgetRegistry, type LimiterFactory } from './budget.js';

/**
 * What the runs of one process share: the connection pool and the rate budgets.
 * Requests go through Node's built-in fetch with an undici Agent as dispatcher
 * (keep-alive pools and connect, headers and body timeouts); this is also the
 * path nock can both replay and record.
 */
export interface Transport {
  dispatcher: Dispatcher;
  budgets: BudgetRegistry;
  /** Ends the pool and the budgets' timers. */
  close(): Promise<void>;
}

export interface TransportOptions {
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Makes each budget's Bottleneck limiter (queue and concurrency); see `LimiterFactory`. */
  limiterFactory?: LimiterFactory;
}

export function createTransport(options: TransportOptions = {}): Transport {
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
    keepAliveTimeout: 4_000,
  });
  // undici 8's Agent speaks a newer dispatcher interface than Node's built-in fetch accepts.
  const dispatcher = new Dispatcher1Wrapper(agent);
  const budgets = new BudgetRegistry(options.limiterFactory);
  return {
    dispatcher,
    budgets,
    async close() {
      await budgets.stop();
      await agent.close();
    },
  };
}

let shared: Transport | undefined;

/** The process-wide transport used when a run names none. */
export function sharedTransport(): Transport {
  shared ??= createTransport();
  return shared;
}
