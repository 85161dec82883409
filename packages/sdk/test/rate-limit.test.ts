import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitedError, readAll, type Transport } from '../src/index.js';
import { createHostTransport, type ManualClock, manualClock } from '../src/host.js';
import { partsOf } from '../src/http/transport.js';
import { example, itemsGetConnector } from './support/connector.js';
import { fastRetry, useHarness } from './support/harness.js';
import { json } from './support/server.js';

/**
 * Budgets, Retry-After and backoff wait on the transport's clock: each test drives a manual
 * clock and the server stamps arrivals with it, so no test waits real seconds.
 */

const h = useHarness();
const fast = fastRetry(4, 50);
const item = (id: string) => ({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' });

let clock: ManualClock;
let transport: Transport;
/** When each request reached the server, on the test's clock. */
let arrivals: number[];
beforeEach(() => {
  clock = manualClock();
  transport = createHostTransport({ clock });
  arrivals = [];
});
afterEach(() => transport.close());

/** Stamps the arrival on the test's clock. */
const arrived = () => arrivals.push(clock.now());

function getItem(id: string, baseUrl: string, signal?: AbortSignal) {
  return readAll(
    example,
    'items.get',
    h.options({ input: { id }, connection: { baseUrl }, retry: fast, signal, transport }),
  );
}

describe('429 and Retry-After', () => {
  it('waits for Retry-After, then succeeds', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
      arrived();
      calls += 1;
      if (calls === 1) json(res, 429, { error: 'rate_limit_exceeded', message: 'slow down' }, { 'retry-after': '1' });
      else json(res, 200, item('a'));
    });
    const { records } = await clock.runUntil(getItem('a', server.url));
    expect(records).toEqual([item('a')]);
    expect(server.requests).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
      arrived();
      calls += 1;
      if (calls === 1)
        json(res, 429, { message: 'later' }, { 'retry-after': new Date(clock.now() + 2000).toUTCString() });
      else json(res, 200, item('a'));
    });
    await clock.runUntil(getItem('a', server.url));
    // The date is read against the transport's clock, which starts on a whole second.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(2000);
  });

  it('pauses the whole budget once: a storm of requests in flight earns one 429 per pause', async () => {
    // The provider's window is closed for one second (another client spent it).
    const closedUntil = clock.now() + 1000;
    let tooMany = 0;
    const server = await h.start((req, res) => {
      if (clock.now() < closedUntil) {
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
    const results = await clock.runUntil(Promise.all(ids.map((id) => getItem(id, server.url))));
    expect(results.map((result) => (result.records[0] as { id: string }).id)).toEqual(ids);
    expect(tooMany).toBe(1);
    expect(server.requests).toHaveLength(26);
    const budget = partsOf(transport).budgets.get('example', 'default', 'default', example.rateLimits.default);
    expect(budget.state().pauses).toBe(1);
  });

  it('waits for Retry-After on a 503 too, and pauses the budget meanwhile', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
      arrived();
      calls += 1;
      if (calls === 1) json(res, 503, { message: 'maintenance' }, { 'retry-after': '1' });
      else json(res, 200, item('a'));
    });
    const { records } = await clock.runUntil(getItem('a', server.url));
    expect(records).toEqual([item('a')]);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('fails at once, with the wait in the error, when Retry-After exceeds the action ceiling', async () => {
    const server = await h.start((req, res) =>
      json(res, 429, { message: 'hourly quota spent' }, { 'retry-after': '3600' }),
    );
    // The clock is not moved: a call that waited would never end.
    const error = await getItem('a', server.url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect((error as RateLimitedError).retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
    // The next call on the paused budget fails before sending anything, naming when to try again by the clock.
    const again = await getItem('b', server.url).catch((caught: unknown) => caught);
    expect((again as Error).message).toMatch(
      /paused for 3600 s, longer than this action waits \(5 s\); try again after 2026-01-01T01:00:00.000Z/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('pauses before the 429 comes when X-RateLimit-Remaining reaches 0', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
      arrived();
      calls += 1;
      const remaining = calls === 1 ? '0' : '10';
      json(res, 200, item(`i${calls}`), { 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': '1' });
    });
    await clock.runUntil(getItem('a', server.url));
    await clock.runUntil(getItem('b', server.url));
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('keeps to a declared budget: no more requests per period than declared', async () => {
    const limited = itemsGetConnector({
      key: 'limited',
      name: 'Limited',
      summary: 'Five requests a second.',
      rateLimits: { default: { limit: 5, per: 'second' } },
    });
    const server = await h.start((req, res) => {
      arrived();
      json(res, 200, item('x'));
    });
    await clock.runUntil(
      Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          readAll(
            limited,
            'items.get',
            h.options({ input: { id: String(index) }, connection: { baseUrl: server.url }, transport }),
          ),
        ),
      ),
    );
    const times = arrivals.toSorted((a, b) => a - b);
    // A sliding window, as providers count: any 5 consecutive requests later, a second has passed.
    for (let index = 0; index + 5 < times.length; index += 1) {
      expect(times[index + 5]! - times[index]!).toBeGreaterThanOrEqual(1000);
    }
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1980);
  });
});
