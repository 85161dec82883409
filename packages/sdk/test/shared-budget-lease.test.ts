import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { RateBudget } from '../src/index.js';
import { HeldBack, type WriteGate } from '../src/http/budget-rules.js';
import { RedisBudgets } from '../src/http/redis-budget-state.js';
import { type BudgetStateStore, SharedBudget } from '../src/http/shared-budget.js';
import { useHarness } from './support/harness.js';
import { connectorWith, dyingMidRequest, getItem, redisNow, until, useSharedRedis } from './support/shared-redis.js';

/**
 * How long a request's running slot is held in a budget shared through Redis: from when the
 * request is written until its send timeout has passed, plus a second, on the Redis server's
 * clock; a process that died mid-request is forgotten then. Times are the Redis server's
 * (`TIME`), never this process's, whose event loop may run late on a loaded machine.
 */

const h = useHarness();
const shared = useSharedRedis();

const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
const runningKey = (prefix: string) => `${prefix}budget:{shared:default:default}:running`;
/** How long a running slot outlives its send timeout (`LEASE_MARGIN_MS`). */
const MARGIN_MS = 1_000;
const answer = { status: 200, headers: new Headers() };
const open = new AbortController().signal;

/** Sends as the transport does: asks the budget's gate at the moment of writing, and writes nothing when it says no. */
function writes(work: () => Promise<void> = async () => undefined) {
  return async (gate?: WriteGate) => {
    if (gate && !gate()) throw new HeldBack();
    await work();
    return answer;
  };
}

/**
 * A budget's store whose answers reach the process only once `release()` is called, as on a
 * machine too busy to read them: the store (Redis) has let the request in meanwhile.
 */
function lateAnswers(store: BudgetStateStore) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
  let asks = 0;
  const late: BudgetStateStore = {
    async acquire(request, count) {
      asks += 1;
      const admission = await store.acquire(request, count);
      answered();
      await released;
      return admission;
    },
    pause: (ms) => store.pause(ms),
    snapshot: () => store.snapshot(),
    read: () => store.read(),
  };
  return {
    store: late,
    release,
    firstAnswered,
    get asks() {
      return asks;
    },
  };
}

/** The running slots' lease ends (the Redis server's clock, ms), as `client` sees them. */
async function leaseEnds(client: Redis, prefix: string): Promise<number[]> {
  const flat = await client.zrange(runningKey(prefix), '0', '-1', 'WITHSCORES');
  return flat.filter((_, index) => index % 2 === 1).map(Number);
}

describe('the running slot of a budget shared through Redis', () => {
  it('is leased from when its request is written, on the Redis server clock, however late that is after it was let in', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const backend = new RedisBudgets(options);
    const late = lateAnswers(backend.state(key));
    const budget = new SharedBudget('shared/default', undefined, undefined, 1, late.store);
    const sendTimeoutMs = 60_000;
    // The budget's own connection: what is read through it comes after what the budget wrote before.
    const client = await backend.client();
    let written: number[] = [];
    let writtenBy = 0;
    try {
      const request = budget.run(
        writes(async () => {
          [written, writtenBy] = await Promise.all([leaseEnds(client, options.prefix), redisNow(client)]);
        }),
        open,
        5_000,
        sendTimeoutMs,
      );
      await late.firstAnswered;
      const [letIn] = await leaseEnds(shared.inspector, options.prefix);
      const admittedAt = letIn! - sendTimeoutMs - MARGIN_MS;
      // The process reads the answer only after the Redis server's clock has moved on.
      await until(async () => (await shared.now()) > admittedAt + 20);
      const releasedAt = await shared.now();
      late.release();
      await request;
      // The send timeout plus a second, from the Redis time at which the request was written (rounded up).
      expect(written).toHaveLength(1);
      expect(written[0]! - sendTimeoutMs - MARGIN_MS).toBeGreaterThanOrEqual(releasedAt);
      expect(written[0]! - sendTimeoutMs - MARGIN_MS).toBeLessThanOrEqual(writtenBy + 1);
      expect(await leaseEnds(shared.inspector, options.prefix)).toEqual([]);
    } finally {
      await budget.stop();
      await backend.close();
    }
  });

  it('is not written on when it was let in longer ago than its lease: it asks again and waits for the slot another process took', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const [here, there] = [new RedisBudgets(options), new RedisBudgets(options)];
    const late = lateAnswers(here.state(key));
    const lateBudget = new SharedBudget('shared/default', undefined, undefined, 1, late.store);
    const other = new SharedBudget('shared/default', undefined, undefined, 1, there.state(key));
    const sendTimeoutMs = 1;
    const events: string[] = [];
    try {
      // Confirmed open first, so that neither request is a probe the other waits for.
      await other.run(writes(), open, 5_000, sendTimeoutMs);
      const request = lateBudget.run(
        writes(async () => void events.push('late written')),
        open,
        5_000,
        sendTimeoutMs,
      );
      await late.firstAnswered;
      const [letIn] = await leaseEnds(shared.inspector, options.prefix);
      await until(async () => (await shared.now()) > letIn!);

      // The lease ran out before the process read its turn: another process takes the slot.
      let answerOther!: () => void;
      const otherAnswered = new Promise<void>((resolve) => (answerOther = resolve));
      const otherRequest = other.run(
        writes(async () => {
          events.push('other written');
          await otherAnswered;
          events.push('other answered');
        }),
        open,
        5_000,
        60_000,
      );
      await until(() => events.includes('other written'));
      late.release();
      await until(() => events.includes('late written') || late.asks >= 2);
      answerOther();
      await Promise.all([request, otherRequest]);
      expect(events).toEqual(['other written', 'other answered', 'late written']);
      expect(late.asks).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all([lateBudget.stop(), other.stop()]);
      await Promise.all([here.close(), there.close()]);
    }
  });

  // A minute: a fresh process on a loaded machine can take many seconds to start.
  it('of a process that died mid-request is given back once its timeout (and a second) has passed, not before', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options({ probeTtlMs: 300 });
    const budget: RateBudget = { limit: 100, per: 'second', maxConcurrent: 1 };
    // Long enough for this process to read the dead slot however late it runs (its key lasts a second beyond it).
    const timeoutMs = 2_000;
    const dying = await dyingMidRequest(h, shared, { budget, redis: options, timeoutMs, dieMidAnswer: true });
    try {
      await dying.exited;
      const [leaseEnd] = await leaseEnds(shared.inspector, options.prefix);
      expect(leaseEnd, 'the dead request still holds its slot').toBeDefined();

      await getItem(connectorWith(budget), shared.transport(options), 'next', dying.server.url);
      expect(dying.server.requests.map((request) => request.path)).toEqual(['/items/hang', '/items/next']);
      // Given back, and not before the dead request's lease ended: no two requests ran at once.
      expect(await dying.arrivals[1]!).toBeGreaterThanOrEqual(leaseEnd!);
    } finally {
      dying.release();
    }
  }, 60_000);
});
