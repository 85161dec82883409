import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTransport,
  NetworkError,
  type RateBudget,
  RateLimitedError,
  readAll,
  type RunOptions,
  type Transport,
} from '../src/index.js';
import { manualClock } from '../src/clock.js';
import { RedisBudgets } from '../src/http/redis-budget-state.js';
import { partsOf } from '../src/http/transport.js';
import { SharedBudget } from '../src/http/shared-budget.js';
import { itemsGetConnector } from './support/connector.js';
import { credential, useHarness } from './support/harness.js';
import { freePort, type RedisServer, startRedis } from './support/redis.js';
import { json, type SeenRequest } from './support/server.js';

/**
 * Rate budgets shared through Redis (`createTransport({ redis })`), against a
 * redis-server this file starts on 127.0.0.1 and real HTTP servers: two
 * transports in this process, and separate processes running the built SDK.
 */

const h = useHarness();
const CHILD = fileURLToPath(new URL('./support/shared-budget-child.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let redis: RedisServer | undefined;
let inspector: Redis | undefined;
let skipReason = '';

beforeAll(async () => {
  const result = await startRedis();
  if (result.server) {
    redis = result.server;
    inspector = new Redis(redis.url);
    return;
  }
  if (process.env.CI) throw new Error(`the shared-budget tests need redis-server on CI: ${result.reason}`);
  skipReason = result.reason;
  console.warn(`skipping the shared-budget tests: ${skipReason}`);
}, 15 * 60_000);

afterAll(async () => {
  inspector?.disconnect();
  await redis?.stop();
});

/** Transports a test opened, closed after it. */
const opened: Transport[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((transport) => transport.close()));
});

let prefixes = 0;
/** Redis options of their own for each test, so that no test sees another's budgets. */
function sharedOptions(extra: { probeTtlMs?: number } = {}) {
  prefixes += 1;
  return { url: redis!.url, prefix: `plugboard-test-${process.pid}-${prefixes}:`, ...extra };
}

function sharedTransport(options: ReturnType<typeof sharedOptions>): Transport {
  const transport = createTransport({ redis: options });
  opened.push(transport);
  return transport;
}

const item = (id: string) => ({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' });

function connectorWith(budget: RateBudget) {
  return itemsGetConnector({
    key: 'shared',
    name: 'Shared',
    summary: 'A budget several transports share.',
    rateLimits: { default: budget },
  });
}

function getItem(
  connector: ReturnType<typeof connectorWith>,
  transport: Transport,
  id: string,
  baseUrl: string,
  retry?: RunOptions['retry'],
) {
  return readAll(connector, 'items.get', {
    input: { id },
    connection: { baseUrl },
    credential,
    transport,
    retry: retry ?? { retries: 4, minTimeoutMs: 10, maxTimeoutMs: 50 },
    log: () => undefined,
  });
}

/** Asserts what a strict provider counts: no `limit` + 1 requests arrived within one period. */
function expectSlidingWindow(requests: readonly SeenRequest[], limit: number, periodMs: number): void {
  const times = requests.map((request) => request.at).sort((a, b) => a - b);
  for (let index = 0; index + limit < times.length; index += 1) {
    expect(times[index + limit]! - times[index]!).toBeGreaterThanOrEqual(periodMs);
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await sleep(10);
  }
}

interface ChildResult {
  ok: number;
  errors: string[];
  ioredisLoaded: boolean;
}

/** Runs test/support/shared-budget-child.mjs; `kill` ends it early. It must exit by itself once done. */
function runChild(settings: {
  baseUrl: string;
  ids: string[];
  budget: RateBudget;
  redis?: unknown;
  hideIORedis?: boolean;
  warmUp?: boolean;
  timeoutMs?: number;
}) {
  if (!existsSync(DIST))
    throw new Error(`${DIST} is missing: build the SDK first (pnpm --filter @plugboard/sdk build)`);
  const child = spawn(process.execPath, [CHILD, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const result = new Promise<ChildResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `the child process did not exit within 20 s (is something left open after transport.close()?)\n${stdout}\n${stderr}`,
        ),
      );
    }, 20_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the child process exited with ${code ?? signal}\n${stdout}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult);
      } catch {
        reject(new Error(`the child process printed no result\n${stdout}\n${stderr}`));
      }
    });
  });
  return { child, result };
}

/**
 * A server that never answers `/items/hang`, and a child process that sent it: `kill()` ends the
 * child (SIGKILL) mid-request and says when; `release()` drops the held answer.
 */
async function dyingMidRequest(settings: { budget: RateBudget; redis: unknown; timeoutMs?: number }) {
  const held: ServerResponse[] = [];
  const server = await h.start((req, res) => {
    if (req.path === '/items/hang') held.push(res);
    else json(res, 200, item(req.path.split('/').pop()!));
  });
  const doomed = runChild({ baseUrl: server.url, ids: ['hang'], ...settings });
  doomed.result.catch(() => undefined);
  await until(() => server.requests.length === 1);
  return {
    server,
    kill: () => {
      doomed.child.kill('SIGKILL');
      return Date.now();
    },
    release: () => {
      for (const res of held) res.destroy();
    },
  };
}

describe('rate budgets shared through Redis', () => {
  it('keeps a declared budget across two transports: no more than 5 requests in any sliding second', async (context) => {
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions();
    const [a, b] = [sharedTransport(options), sharedTransport(options)];
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
    const keys = await inspector!.keys(`*${options.prefix}*`);
    expect(keys.sort()).toEqual(
      ['concurrency', 'confirmed', 'window'].map((name) => `${options.prefix}budget:{shared:default:default}:${name}`),
    );
    for (const key of keys) expect({ key, ttl: (await inspector!.pttl(key)) > 0 }).toEqual({ key, ttl: true });
  });

  it('shares the concurrency, and the latest declared concurrency replaces the stored one', async (context) => {
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions();
    const [a, b] = [sharedTransport(options), sharedTransport(options)];
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
    expect(await inspector!.get(concurrencyKey)).toBe('4');
    await Promise.all(
      Array.from({ length: 8 }, (_, index) => getItem(wide, index % 2 ? a : b, `w${index}`, server.url)),
    );
    expect(peak).toBe(4);

    // Another process declares 2: the cluster follows it, without forgetting what runs.
    const narrow = connectorWith({ limit: 100, per: 'second', maxConcurrent: 2 });
    const c = sharedTransport(options);
    await getItem(narrow, c, 'second', server.url);
    expect(await inspector!.get(concurrencyKey)).toBe('2');
    peak = 0;
    // Transport a declared 4, and keeps to the 2 stored since.
    await Promise.all(
      Array.from({ length: 9 }, (_, index) =>
        getItem(index % 3 ? narrow : wide, [a, b, c][index % 3]!, `i${index}`, server.url),
      ),
    );
    expect(server.requests).toHaveLength(19);
    expect(peak).toBe(2);
    expect(await inspector!.zcard(`${options.prefix}budget:{shared:default:default}:running`)).toBe(0);
  });

  it('keeps one budget across two processes running the built SDK', async (context) => {
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions();
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
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions();
    const [a, b] = [sharedTransport(options), sharedTransport(options)];
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

  it('does not let a process that died holding the probe block the budget beyond the probe TTL', async (context) => {
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions({ probeTtlMs: 1500 });
    const budget: RateBudget = { limit: 100, per: 'second' };
    const { server, kill, release } = await dyingMidRequest({ budget, redis: options });
    try {
      const probeKey = `${options.prefix}budget:{shared:default:default}:probe`;
      expect(await inspector!.pttl(probeKey)).toBeGreaterThan(0);
      const killedAt = kill();

      const transport = sharedTransport(options);
      await Promise.all(['x', 'y', 'z'].map((id) => getItem(connectorWith(budget), transport, id, server.url)));
      const first = Math.min(...server.requests.slice(1).map((request) => request.at));
      // It waited for the dead probe's claim to expire (renewed every 500 ms until the kill), and not much longer.
      expect(first - killedAt).toBeGreaterThanOrEqual(900);
      expect(first - killedAt).toBeLessThan(1500 + 2500);
      expect(server.requests).toHaveLength(4);
    } finally {
      release();
    }
  });

  it('gives back the concurrency of a process that died mid-request once its timeout has passed', async (context) => {
    if (!redis) return context.skip(skipReason);
    const options = sharedOptions({ probeTtlMs: 300 });
    const budget: RateBudget = { limit: 100, per: 'second', maxConcurrent: 1 };
    const { server, kill, release } = await dyingMidRequest({ budget, redis: options, timeoutMs: 500 });
    try {
      kill();
      const hangAt = server.requests[0]!.at;

      const transport = sharedTransport(options);
      await getItem(connectorWith(budget), transport, 'next', server.url);
      const nextAt = server.requests[1]!.at;
      // The dead request's slot was held for its timeout (0.5 s, plus a second for its answer to be read), not longer.
      expect(nextAt - hangAt).toBeGreaterThanOrEqual(500);
      expect(nextAt - hangAt).toBeLessThan(1_500 + 2_500);
      expect(server.requests).toHaveLength(2);
    } finally {
      release();
    }
  });

  it("waits on the budget's clock: a turn never given fails when the clock says so, and a wait ends when its caller aborts", async (context) => {
    if (!redis) return context.skip(skipReason);
    const backend = new RedisBudgets(sharedOptions());
    const key = { id: 'plugboard:shared:default:default', connectorKey: 'shared', owner: 'default', name: 'default' };
    const clock = manualClock();
    // One request a minute: once one went, the next waits about a minute of the Redis server's time.
    const budget = new SharedBudget('shared/default', 1, 60_000, undefined, backend.state(key), clock);
    const answer = async () => ({ status: 200, headers: new Headers() });
    const open = new AbortController().signal;
    try {
      await expect(budget.run(answer, open, 120_000)).resolves.toMatchObject({ status: 200 });

      // A wait longer than the caller accepts fails at once. The wait is the Redis server's: the real
      // time between the two requests comes off it (a second or more on a machine under load).
      await expect(budget.run(answer, open, 1_000)).rejects.toThrow(
        /^rate budget 'shared\/default' allows 1 requests per 60 s; the next one may go in (5\d|60) s, longer than this action waits \(1 s\)$/,
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

  it("lets one process's requests go in the order they came (concurrency 1)", async (context) => {
    if (!redis) return context.skip(skipReason);
    const backend = new RedisBudgets(sharedOptions());
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
    const transport = createTransport({ redis: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 5_000 } });
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
    const transport = createTransport({ redis: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 500 } });
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
    if (!redis) return context.skip(skipReason);
    const port = await freePort();
    const transport = createTransport({ redis: { ...sharedOptions(), url: `redis://127.0.0.1:${port}` } });
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
        /^GET \/items\/a: createTransport\(\{ redis \}\) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard\/sdk \(npm install ioredis\)/,
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
      /createTransport\(\{ redis \}\) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard\/sdk/,
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
