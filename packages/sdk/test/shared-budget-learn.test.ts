import { describe, expect, it } from 'vitest';
import { manualClock } from '../src/clock.js';
import { RedisBudgets } from '../src/http/redis-budget-state.js';
import { SharedBudget } from '../src/http/shared-budget.js';
import { useHarness } from './support/harness.js';
import { connectorWith, dyingMidRequest, getItem, runChild, until, useSharedRedis } from './support/shared-redis.js';
import { startStrictWindow } from './support/strict-window.js';

/**
 * A budget the connector does not declare, shared through Redis by separate processes
 * running the built SDK: one request at a time across all of them until the provider first
 * refuses, then the window that refusal shows, kept in Redis for every process. Against a
 * strict sliding-window provider that counts what arrived and how many it held at once.
 */

const h = useHarness();
const shared = useSharedRedis();

const ids = (name: string, count: number) => Array.from({ length: count }, (_, index) => `${name}${index}`);
const learnedKey = (prefix: string) => `${prefix}budget:{shared:default:default}:learn`;

describe('an undeclared budget shared through Redis', () => {
  it('sends one request at a time across 4 processes, learns the window from one 429, keeps it for all and relearns it when it proves wrong', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    // 4 per 8 s, and every refusal asks for 8 s: a refusal teaches only when the one-at-a-time
    // run before it was no longer than the wait it asks for, and four requests one at a time
    // take well under 8 s however loaded the machine (8 per 3 s did not, at a load of 9).
    const server = await startStrictWindow(h, { limit: 4, periodMs: 8000, answerMs: 10, retryAfterSeconds: 8 });
    const fleet = async (name: string, count: number) => {
      const children = Array.from({ length: 4 }, (_, index) =>
        runChild({ baseUrl: server.url, ids: ids(`${name}${index}-`, count), redis: options, barrier: true }),
      );
      // Loaded first, then started together: a slow start is not part of what the fleet sends.
      await Promise.all(children.map((child) => child.ready));
      for (const child of children) child.go();
      for (const result of await Promise.all(children.map((child) => child.result)))
        expect(result).toMatchObject({ ok: count, errors: [] });
    };

    // 8 requests of 4 processes: two windows' worth.
    await fleet('a', 2);
    expect(server.peakBeforeRefusal).toBe(1);
    expect(server.refusedPaths).toHaveLength(1);
    expect(server.admitted).toBe(8);
    const learned = await shared.inspector.hgetall(learnedKey(options.prefix));
    expect(Number(learned.limit)).toBe(4);
    expect(Number(learned.period)).toBeGreaterThanOrEqual(8000);

    // The provider tightens to 2: the first 429 under the learned window forgets it, the next
    // (after two more, one at a time) teaches the new one.
    server.tighten(2);
    const alone = runChild({ baseUrl: server.url, ids: ids('b', 5), redis: options, sequential: true });
    expect(await alone.result).toMatchObject({ ok: 5, errors: [] });
    expect(server.refusedPaths).toHaveLength(3);
    const relearned = await shared.inspector.hgetall(learnedKey(options.prefix));
    expect(Number(relearned.limit)).toBeGreaterThanOrEqual(1);
    expect(Number(relearned.limit)).toBeLessThanOrEqual(2);

    // Every process keeps to the window learned since: no further 429.
    await fleet('c', 1);
    expect(server.refusedPaths).toHaveLength(3);
  }, 150_000);

  // A minute: a fresh process on a loaded machine can take many seconds to start.
  it('does not let a process that died mid-request hold the fleet beyond its hold', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options({ probeTtlMs: 300 });
    const timeoutMs = 2_000;
    const dying = await dyingMidRequest(h, shared, { redis: options, timeoutMs, dieMidAnswer: true });
    try {
      await dying.exited;
      const runningKey = `${options.prefix}budget:{shared:default:default}:running`;
      const [, leaseEnd] = await shared.inspector.zrange(runningKey, '0', '-1', 'WITHSCORES');
      expect(leaseEnd, 'the dead request still holds its turn').toBeDefined();

      await getItem(connectorWith(), shared.transport(options), 'next', dying.server.url);
      expect(dying.server.requests.map((request) => request.path)).toEqual(['/items/hang', '/items/next']);
      // Not before the dead request's hold ended (no two at once), and then at once: nothing else holds it.
      expect(await dying.arrivals[1]!).toBeGreaterThanOrEqual(Number(leaseEnd));
      expect(await shared.inspector.zcard(runningKey)).toBe(0);
    } finally {
      dying.release();
    }
  }, 60_000);

  it("sends side by side as many as the provider's X-RateLimit-Remaining leaves room for, and no more", async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const backend = new RedisBudgets(shared.options());
    const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
    const clock = manualClock();
    const budget = new SharedBudget('shared/default', undefined, undefined, undefined, backend.state(key), clock);
    let running = 0;
    let sent = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The first answer says 5 more places remain; the others wait for the gate.
    const send = async () => {
      sent += 1;
      const first = sent === 1;
      running += 1;
      if (!first) await gate;
      running -= 1;
      return { status: 200, headers: new Headers({ 'x-ratelimit-remaining': first ? '5' : '50' }) };
    };
    const signal = new AbortController().signal;
    try {
      const runs = Array.from({ length: 7 }, () => budget.run(send, signal, 60_000));
      await until(() => running === 5);
      // The seventh waits for a turn the store refused (its bound and the queue's next ask are timers on the clock).
      await until(() => clock.pending === 2);
      expect(sent).toBe(6);
      open();
      await Promise.all(runs);
      expect(sent).toBe(7);
    } finally {
      await budget.stop();
      await backend.close();
    }
  });
});
