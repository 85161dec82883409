import { describe, expect, it } from 'vitest';
import { call, NOW, quoteRequest, useSimulators } from './harness.js';

const start = useSimulators();

/** A clock the test moves by hand, so windows can be crossed without waiting. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let at = NOW;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

const quote = (tier = 'basic') => ['POST', `/v1/hospital-cash/${tier}/quotes`] as const;

describe('rate budgets', () => {
  it('shares 60 quotes per minute across the three tiers, then answers 429 with Retry-After', async () => {
    const clock = manualClock();
    const sim = await start({ clock: clock.now });
    const tiers = ['basic', 'classic', 'plus'];
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call(sim, ...quote(tiers[i % 3]), { body: quoteRequest() })),
    );
    expect(replies.every((reply) => reply.status === 201)).toBe(true);

    clock.advance(10_000);
    const refused = await call(sim, ...quote('plus'), { body: quoteRequest() });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.json).toEqual({
      error: 'rate_limit_exceeded',
      message: 'Rate limit exceeded (60 per minute)',
      request_id: refused.headers.get('x-request-id'),
    });

    const other = await call(sim, 'GET', '/v2/motor/quotes');
    expect(other.status).toBe(200);

    clock.advance(50_000);
    expect((await call(sim, ...quote(), { body: quoteRequest() })).status).toBe(201);

    const { quotes } = sim.counters().budgets;
    expect(quotes).toMatchObject({ limit: 60, windowMs: 60_000, admitted: 61, rejected: 1, peakInWindow: 61 });
  });

  it('gives every other operation its own 120 per minute', async () => {
    const clock = manualClock();
    const sim = await start({ clock: clock.now });
    for (let i = 0; i < 60; i += 1) await call(sim, ...quote(), { body: quoteRequest() });
    expect((await call(sim, ...quote(), { body: quoteRequest() })).status).toBe(429);

    const paths = [
      '/v2/motor/quotes',
      '/v2/motor/policies',
      '/v1/travel/policies',
      '/v1/homeowner/quotes',
      '/v1/hospital-cash/policies',
    ];
    const replies = await Promise.all(
      Array.from({ length: 120 }, (_, i) => call(sim, 'GET', paths[i % paths.length] as string)),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(120).fill(200));

    const refused = await call(sim, 'POST', '/v1/travel/policies', { body: { trip: 'x' } });
    expect(refused.status).toBe(429);
    expect(refused.json.message).toBe('Rate limit exceeded (120 per minute)');
    expect(Number(refused.headers.get('retry-after'))).toBe(60);
    expect(sim.stored('/v1/travel/policies')).toHaveLength(0);
    expect(sim.counters().budgets.other).toMatchObject({ limit: 120, admitted: 120, rejected: 1, peakInWindow: 121 });
  });

  it('slides the window: a request is admitted once the oldest one has left it', async () => {
    const clock = manualClock();
    const sim = await start({ clock: clock.now, budgets: { quotes: { limit: 3, windowMs: 1_000 } } });
    for (const gap of [0, 400, 400]) {
      clock.advance(gap);
      expect((await call(sim, ...quote(), { body: quoteRequest() })).status).toBe(201);
    }
    clock.advance(199); // 999 ms after the first: still inside its window
    const refused = await call(sim, ...quote(), { body: quoteRequest() });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json.message).toBe('Rate limit exceeded (3 per second)');
    clock.advance(1);
    expect((await call(sim, ...quote(), { body: quoteRequest() })).status).toBe(201);
  });

  it('counts the peak per window so a test can tell a polite client from one that overran', async () => {
    const clock = manualClock();
    const sim = await start({ clock: clock.now, budgets: { other: { limit: 5, windowMs: 1_000 } } });
    for (let i = 0; i < 10; i += 1) {
      expect((await call(sim, 'GET', '/v1/homeowner/quotes')).status).toBe(200);
      clock.advance(200); // 5 per second, exactly the budget
    }
    expect(sim.counters().budgets.other).toMatchObject({ peakInWindow: 5, rejected: 0 });
  });

  it('works on the real clock: refuses within a window and admits again once it has passed', async () => {
    // Nothing here depends on how fast the machine is: the quote window is far longer than the
    // test, and the short one is only ever waited out, never raced.
    const sim = await start({
      clock: Date.now,
      budgets: { quotes: { limit: 2, windowMs: 10 * 60_000 }, other: { limit: 1, windowMs: 100 } },
    });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call(sim, ...quote(), { body: quoteRequest() })).status);
    expect(statuses).toEqual([201, 201, 429]);
    expect((await call(sim, 'GET', '/v2/motor/quotes')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 110));
    expect((await call(sim, 'GET', '/v2/motor/quotes')).status).toBe(200);
    expect(sim.counters().budgets.other).toMatchObject({ admitted: 2, rejected: 0 });
  });
});
