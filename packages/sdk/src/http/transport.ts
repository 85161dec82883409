import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import { BudgetRegistry } from './budget.js';
import { RedisBudgets, type RedisBudgetsOption } from './redis-budget-state.js';

/**
 * What the runs of one process share: the connection pool and the rate budgets.
 * Requests go straight to an undici Agent (keep-alive pools and connect,
 * headers and body timeouts), about twice the speed of fetch on the same pool;
 * with `via: 'fetch'` they go through Node's built-in fetch on that Agent
 * instead, which is what fetch interceptors such as nock see (the testing kit
 * records and replays fixtures that way); with `via: 'http'` through Node's
 * own http and https modules, which start quickest (a command that makes a
 * few requests).
 *
 * The budgets are this transport's own unless `redis` is given (kept in
 * memory, at no cost while they do not bind): then every transport, in any
 * process on any machine, that uses the same Redis keeps one budget per
 * (connector, connection, budget name) together: the sliding window, the
 * pause, the probe and the concurrency (Bottleneck clustering).
 */
export interface Transport {
  /** How requests are sent: straight to the pool, or through the built-in fetch. */
  via: 'undici' | 'fetch' | 'http';
  /** The pool (made on first use). */
  readonly agent: Agent;
  /** The pool as the built-in fetch takes it (made on first use). */
  readonly dispatcher: Dispatcher;
  budgets: BudgetRegistry;
  /** Ends the pool, the budgets' timers and the Redis connections the transport opened; waiting requests fail. */
  close(): Promise<void>;
}

export interface TransportOptions {
  /**
   * `undici` (default): requests go to the pool directly. `fetch`: through the
   * built-in fetch on the pool, for fetch interceptors. `http`: Node's http and
   * https modules and their agents, never loading undici (the pool's timeouts
   * below do not apply; each request's own does).
   */
  via?: 'undici' | 'fetch' | 'http';
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * Shares the rate budgets through Redis: a URL (`redis://127.0.0.1:6379`) or
   * `RedisBudgetOptions` (URL or ioredis client options or an ioredis client,
   * key prefix, probe and idle TTLs). Needs the package `ioredis` (an optional
   * peer dependency), loaded on the first request; nothing connects before.
   * Without it, budgets live in this process only.
   */
  redis?: RedisBudgetsOption;
}

/** undici is loaded when a pool is first needed: a process that never sends does not pay for it. */
const load = createRequire(import.meta.url);

export function createTransport(options: TransportOptions = {}): Transport {
  const via = options.via ?? 'undici';
  const redis = options.redis === undefined ? undefined : new RedisBudgets(options.redis);
  let agent: Agent | undefined;
  let dispatcher: Dispatcher | undefined;
  const pool = (): Agent => {
    if (!agent) {
      const { Agent: Pool } = load('undici') as typeof import('undici');
      agent = new Pool({
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
        headersTimeout: options.headersTimeoutMs ?? 60_000,
        bodyTimeout: options.bodyTimeoutMs ?? 60_000,
        keepAliveTimeout: 4_000,
      });
    }
    return agent;
  };
  const budgets = new BudgetRegistry(redis);
  return {
    via,
    get agent() {
      return pool();
    },
    get dispatcher() {
      // undici 8's Agent speaks a newer dispatcher interface than Node's built-in fetch accepts.
      dispatcher ??= new (load('undici') as typeof import('undici')).Dispatcher1Wrapper(pool());
      return dispatcher;
    },
    budgets,
    async close() {
      await budgets.stop();
      await agent?.close();
    },
  };
}

let shared: Transport | undefined;

/** The process-wide transport used when a run names none. */
export function sharedTransport(): Transport {
  shared ??= createTransport();
  return shared;
}
