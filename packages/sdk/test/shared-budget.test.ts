import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createHostTransport } from '../src/host.js';
import { NetworkError, RateLimitedError, type RateBudget, type Transport } from '../src/index.js';
import { manualClock } from '../src/clock.js';
import { RedisBudgets } from '../src/http/redis-budget-state.js';
import { partsOf } from '../src/http/transport.js';
import { SharedBudget } from '../src/http/shared-budget.js';
import { useHarness } from './support/harness.js';
import { freePort, startRedis } from './support/redis.js';
import { json, type SeenRequest } from './support/server.js';
import {
  connectorWith,
  DIST,
  dyingMidRequest,
  getItem,
  item,
  runChild,
  until,
  useSharedRedis,
} from './support/shared-redis.js';

/**
 * Rate budgets shared through Redis (`createHostTransport({ redis })`), against a
 * redis-server this file starts on 127.0.0.1 and real HTTP servers: two
 * transports in this process, and separate processes running the built SDK.
 * How a running request's slot is leased: shared-budget-lease.test.ts.
 */

const h = useHarness();
const shared = useSharedRedis();

/** Asserts what a strict provider counts: no `limit` + 1 requests arrived within one period. */
function expectSlidingWindow(requests: readonly SeenRequest[], limit: number, periodMs: number): void {
  const times = requests.map((request) => request.at).sort((a, b) => a - b);
  for (let index = 0; index + limit < times.length; index += 1) {
    expect(times[index + limit]! - times[index]!).toBeGreaterThanOrEqual(periodMs);
  }
}

describe('rate budgets shared through Redis', () => {
  it('keeps a declared budget across two transports: no more than 5 requests in any sliding second', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const [a, b] = [shared.transport(options), shared.transport(options)];
    const limited = connectorWith({ limit: 5, per: 'second' });
    const server = await h.start((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    await Promise.all(
      Array.from({ length: 12 }, (_, index) => getItem(limited, index % 2 ? a : b, `i${index}`, server.url)),
    );
    expect(server.requests).toHaveLength(12);
    expectSlidingWindow(server.requests, 5, 1000);
    const times = server.requests.map((request) => request.at).sort((x, y) => x - y);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1980);
    expect(partsOf(a).budgets.get('shared', 'default', 'default', limited.rateLimits.default).shared).toBe(true);

    // Every key the budget left in Redis is one of its layout's, and expires by itself.
    const keys = await shared.inspector.keys(`*${options.prefix}*`);
    expect(keys.sort()).toEqual(
      ['concurrency', 'confirmed', 'window'].map((name) => `${options.prefix}budget:{shared:default:default}:${name}`),
    );
    for (const key of keys) expect({ key, ttl: (await shared.inspector.pttl(key)) > 0 }).toEqual({ key, ttl: true });
  });

  it('shares the concurrency, and the latest declared concurrency replaces the stored one', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const [a, b] = [shared.transport(options), shared.transport(options)];
    let inFlight = 0;
    let peak = 0;
    const server = await h.start(async (req, res) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await sleep(100);
      inFlight -= 1;
      json(res, 200, item(req.path.split('/').pop()!));
    });
    const wide = connectorWith({ limit: 100, per: 'second', maxConcurrent: 4 });
    await getItem(wide, a, 'first', server.url);
    const concurrencyKey = `${options.prefix}budget:{shared:default:default}:concurrency`;
    expect(await shared.inspector.get(concurrencyKey)).toBe('4');
    await Promise.all(
      Array.from({ length: 8 }, (_, index) => getItem(wide, index % 2 ? a : b, `w${index}`, server.url)),
    );
    expect(peak).toBe(4);

    // Another process declares 2: the cluster follows it, without forgetting what runs.
    const narrow = connectorWith({ limit: 100, per: 'second', maxConcurrent: 2 });
    const c = shared.transport(options);
    await getItem(narrow, c, 'second', server.url);
    expect(await shared.inspector.get(concurrencyKey)).toBe('2');
    peak = 0;
    // Transport a declared 4, and keeps to the 2 stored since.
    await Promise.all(
      Array.from({ length: 9 }, (_, index) =>
        getItem(index % 3 ? narrow : wide, [a, b, c][index % 3]!, `i${index}`, server.url),
      ),
    );
    expect(server.requests).toHaveLength(19);
    expect(peak).toBe(2);
    expect(await shared.inspector.zcard(`${options.prefix}budget:{shared:default:default}:running`)).toBe(0);
  });

  it('keeps one budget across two processes running the built SDK', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const server = await h.start((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    const budget: RateBudget = { limit: 5, per: 'second' };
    const ids = (name: string) => Array.from({ length: 6 }, (_, index) => `${name}${index}`);
    const first = runChild({ baseUrl: server.url, ids: ids('a'), budget, redis: options, warmUp: true });
    const second = runChild({ baseUrl: server.url, ids: ids('b'), budget, redis: options, warmUp: true });
    const results = await Promise.all([first.result, second.result]);
    for (const result of results) expect(result).toEqual({ ok: 6, errors: [], ioredisLoaded: true });
    const measured = server.requests.filter((request) => request.path !== '/items/warm');
    expect(server.requests).toHaveLength(14);
    expect(measured).toHaveLength(12);
    expectSlidingWindow(measured, 5, 1000);
    expect(new Set(measured.map((request) => request.path[7]))).toEqual(new Set(['a', 'b']));
  });

  it('pauses every transport on a 429 that one of them saw: one 429 per pause', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options();
    const [a, b] = [shared.transport(options), shared.transport(options)];
    const connector = connectorWith({ limit: 1000, per: 'second' });
    const budgetOf = (transport: Transport) =>
      partsOf(transport).budgets.get('shared', 'default', 'default', connector.rateLimits.default);

    // The provider's window is closed for a second; requests wait in both transports.
    const closedUntil = Date.now() + 1000;
    let tooMany = 0;
    let triggered = false;
    const server = await h.start((req, res) => {
      const closed = Date.now() < closedUntil || (req.path === '/items/trigger' && !triggered);
      if (req.path === '/items/trigger') triggered = true;
      if (closed) {
        tooMany += 1;
        json(
          res,
          429,
          { error: 'rate_limit_exceeded', message: 'Too many requests' },
          { 'retry-after': '1', 'x-ratelimit-remaining': '0' },
        );
      } else {
        json(res, 200, item(req.path.split('/').pop()!), { 'x-ratelimit-remaining': '100' });
      }
    });
    const ids = Array.from({ length: 25 }, (_, index) => `i${index}`);
    const results = await Promise.all(ids.map((id, index) => getItem(connector, index % 2 ? a : b, id, server.url)));
    expect(results.map((result) => (result.records[0] as { id: string }).id)).toEqual(ids);
    expect(tooMany).toBe(1);
    expect(server.requests).toHaveLength(26);
    expect((await budgetOf(b).readState()).pauses).toBe(1);

    // Open and confirmed now: a 429 that transport a meets holds transport b too.
    const trigger = getItem(connector, a, 'trigger', server.url);
    await until(async () => (await budgetOf(b).readState()).pausedUntil > Date.now());
    const afterTrigger = server.requests.length;
    const follower = getItem(connector, b, 'follower', server.url);
    await Promise.all([trigger, follower]);
    expect(tooMany).toBe(2);
    const triggerAt = server.requests.find((request) => request.path === '/items/trigger')!.at;
    const followerAt = server.requests.find((request) => request.path === '/items/follower')!.at;
    expect(followerAt - triggerAt).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(afterTrigger + 2);
    expect((await budgetOf(a).readState()).pauses).toBe(2);
  });

  // A minute: a fresh process on a loaded machine can take many seconds to start.
  it('does not let a process that died holding the probe block the budget beyond the probe TTL', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const options = shared.options({ probeTtlMs: 1500 });
    const budget: RateBudget = { limit: 100, per: 'second' };
    // Warmed up first, so that loading modules does not keep it from renewing its claim.
    const { server, arrivals, kill, release } = await dyingMidRequest(h, shared, {
      budget,
      redis: options,
      warmUp: true,
    });
    try {
      const probeKey = `${options.prefix}budget:{shared:default:default}:probe`;
      // Where the probe's claim ends on the Redis server's clock; its holder only extends it until it dies.
      const [now, left] = await Promise.all([shared.now(), shared.inspector.pttl(probeKey)]);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(1500);
      const claimEnds = now + left;
      kill();

      const transport = shared.transport(options);
      await Promise.all(['x', 'y', 'z'].map((id) => getItem(connectorWith(budget), transport, id, server.url)));
      const measured = server.requests.flatMap((request, index) =>
        /^\/items\/[xyz]$/.test(request.path) ? [index] : [],
      );
      expect(measured).toHaveLength(3);
      // It waited for the dead probe's claim to expire: no request went while the claim held.
      const first = Math.min(...(await Promise.all(measured.map((index) => arrivals[index]!))));
      expect(first).toBeGreaterThanOrEqual(claimEnds);
    } finally {
      release();
    }
  }, 60_000);

  it("waits on the budget's clock: a turn never given fails when the clock says so, and a wait ends when its caller aborts", async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const backend = new RedisBudgets(shared.options());
    const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
    const clock = manualClock();
    // One request a minute: once one went, the next waits about a minute of the Redis server's time.
    const budget = new SharedBudget('shared/default', 1, 60_000, undefined, backend.state(key), clock);
    const answer = async () => ({ status: 200, headers: new Headers() });
    const open = new AbortController().signal;
    try {
      await expect(budget.run(answer, open, 120_000)).resolves.toMatchObject({ status: 200 });

      // A wait longer than the caller accepts fails at once. The wait is the Redis server's: the real
      // time between the two requests comes off it (a second or more on a machine under load), and an
      // answer within the question's millisecond adds one (its time is rounded up): 60.001 s says 61.
      await expect(budget.run(answer, open, 1_000)).rejects.toThrow(
        /^rate budget 'shared\/default' allows 1 requests per 60 s; the next one may go in (5\d|60|61) s, longer than this action waits \(1 s\)$/,
      );

      // A wait it accepts is a timer on the clock (and one for its bound), and it ends when the caller aborts.
      const caller = new AbortController();
      const aborted = budget.run(answer, caller.signal, 120_000).catch((error: unknown) => error);
      await until(() => clock.pending === 2);
      caller.abort(new Error('the caller gave up'));
      expect(await aborted).toEqual(new Error('the caller gave up'));

      // A turn the window keeps refusing: the request fails at its bound (twice its ceiling plus 10 s) on the clock.
      const refused = budget.run(answer, open, 120_000).catch((error: unknown) => error);
      await until(() => clock.pending === 2);
      await clock.advance(250_000);
      const error = await refused;
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as Error).message).toBe("rate budget 'shared/default' gave this request no turn within 250 s");
    } finally {
      await budget.stop();
      await backend.close();
    }
  });

  it('counts a place answered within the same millisecond as answered: the next request waits the period, not a re-ask', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const backend = new RedisBudgets(shared.options());
    const request = { limit: 1, periodMs: 60_000, maxConcurrent: undefined, holdMs: 60_000 };
    try {
      // Each time the answer and the next question reach Redis back to back, most often in one millisecond.
      for (let index = 0; index < 5; index += 1) {
        const name = `same-ms-${index}`;
        const state = backend.state({
          id: `plugboard:shared:default:${name}`,
          connectorKey: 'shared',
          owner: 'default',
          name,
        });
        const first = await state.acquire(request, 1);
        if (first.kind !== 'go') throw new Error(`expected the first request to go, got ${first.kind}`);
        const [, next] = await Promise.all([
          first.tickets[0]!.end('confirm', performance.now()),
          state.acquire(request, 1),
        ]);
        expect(next).toMatchObject({ kind: 'window', limit: 1, periodMs: 60_000 });
        expect((next as { waitMs: number }).waitMs).toBeGreaterThan(59_000);
      }
    } finally {
      await backend.close();
    }
  });

  it("lets one process's requests go in the order they came (concurrency 1)", async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const backend = new RedisBudgets(shared.options());
    const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
    const budget = new SharedBudget('shared/default', undefined, undefined, 1, backend.state(key));
    const sent: number[] = [];
    let running = 0;
    const send = (index: number) => async () => {
      running += 1;
      sent.push(index);
      expect(running).toBe(1);
      await sleep(5);
      running -= 1;
      return { status: 200, headers: new Headers() };
    };
    const open = new AbortController().signal;
    try {
      await Promise.all(Array.from({ length: 8 }, (_, index) => budget.run(send(index), open, 5_000)));
      expect(sent).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await budget.stop();
      await backend.close();
    }
  });

  it('fails a request at once with a clear error when nothing listens where Redis should be, and closes at once', async () => {
    // A port nobody listens on: the harness server, closed.
    const server = await h.start((req, res) => json(res, 200, item('a')));
    const port = new URL(server.url).port;
    await h.stop();
    const transport = createHostTransport({ redis: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 5_000 } });
    try {
      const started = Date.now();
      const error = await getItem(connectorWith({ limit: 5, per: 'second' }), transport, 'a', 'http://127.0.0.1:9', {
        retries: 0,
        minTimeoutMs: 10,
        maxTimeoutMs: 10,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `shared budget store \\(Redis\\) failed: Redis at 127\\.0\\.0\\.1:${port} cannot be reached \\(connect ECONNREFUSED`,
        ),
      );
      // Refused is final for this attempt: no waiting out the connect timeout.
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      const started = Date.now();
      await transport.close();
      expect(Date.now() - started).toBeLessThan(2_000);
    }
  });

  it('fails a request with a clear error when Redis accepts the connection but never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const transport = createHostTransport({ redis: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 500 } });
    try {
      const error = await getItem(connectorWith({ limit: 5, per: 'second' }), transport, 'a', 'http://127.0.0.1:9', {
        retries: 0,
        minTimeoutMs: 10,
        maxTimeoutMs: 10,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `shared budget store \\(Redis\\) failed: no answer from Redis at 127\\.0\\.0\\.1:${port} within 500 ms`,
        ),
      );
    } finally {
      await transport.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('fails with budget_store_unavailable while Redis is down, and the next request connects once it is up', async (context) => {
    if (!shared.redis) return context.skip(shared.skipReason);
    const port = await freePort();
    const transport = createHostTransport({ redis: { ...shared.options(), url: `redis://127.0.0.1:${port}` } });
    const server = await h.start((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    const limited = connectorWith({ limit: 5, per: 'second' });
    const once = { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10 };
    const down = await getItem(limited, transport, 'down', server.url, once).catch((caught: unknown) => caught);
    expect(down).toBeInstanceOf(NetworkError);
    expect(down).toMatchObject({ code: 'budget_store_unavailable', retryable: true });
    const later = await startRedis(port);
    try {
      if (!later.server) throw new Error(later.reason);
      const up = await getItem(limited, transport, 'up', server.url, once);
      expect(up.records).toEqual([item('up')]);
      expect(server.requests.map((request) => request.path)).toEqual(['/items/up']);
    } finally {
      await transport.close();
      await later.server?.stop();
    }
  });

  it('names the missing package when ioredis is not installed (a process where it cannot be resolved)', async (context) => {
    if (!existsSync(DIST)) return context.skip('dist/index.js is not built');
    const server = await h.start((req, res) => json(res, 200, item('a')));
    const { result } = runChild({
      baseUrl: server.url,
      ids: ['a'],
      budget: { limit: 5, per: 'second' },
      redis: 'redis://127.0.0.1:9',
      hideIORedis: true,
    });
    const { ok, errors } = await result;
    expect(ok).toBe(0);
    expect(errors).toEqual([
      expect.stringMatching(
        /^GET \/items\/a: createHostTransport\(\{ redis \}\) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard\/sdk \(npm install ioredis\)/,
      ),
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('names the missing package when ioredis cannot be loaded', async () => {
    const backend = new RedisBudgets('redis://127.0.0.1:6379', {
      load: () => Promise.reject(new Error("Cannot find package 'ioredis'")),
    });
    const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
    const state = backend.state(key);
    await expect(
      state.acquire({ limit: 5, periodMs: 1000, maxConcurrent: undefined, holdMs: 1000 }, 1),
    ).rejects.toThrow(
      /createHostTransport\(\{ redis \}\) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard\/sdk/,
    );
    await expect(state.read()).rejects.toThrow(/'ioredis', which is not installed/);
    await backend.close();
  });

  it('touches no Redis without the option: ioredis is never even loaded', async (context) => {
    const server = await h.start((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    const limited = connectorWith({ limit: 5, per: 'second' });
    await getItem(limited, h.transport, 'here', server.url);
    expect(partsOf(h.transport).budgets.get('shared', 'default', 'default', limited.rateLimits.default).shared).toBe(
      false,
    );
    if (!existsSync(DIST)) return context.skip('dist/index.js is not built');
    const { result } = runChild({ baseUrl: server.url, ids: ['p0', 'p1', 'p2'], budget: { limit: 5, per: 'second' } });
    expect(await result).toEqual({ ok: 3, errors: [], ioredisLoaded: false });
  });
});
