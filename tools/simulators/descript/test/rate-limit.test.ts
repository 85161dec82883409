import { afterEach, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { call, manualClock } from './helpers.js';

describe('request budget', () => {
  let sim: DescriptSimulator;
  afterEach(() => sim.close());

  it('answers 429 with Retry-After and counters once the window is spent, then recovers', async () => {
    const clock = manualClock();
    sim = await startDescriptSimulator({ size: 5, clock: clock.now, rateLimit: { limit: 3, windowMs: 60_000 } });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call(sim, '/status'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);
    expect(answers.map((a) => a.headers.get('x-ratelimit-consumed'))).toEqual(['1', '2', '3']);

    clock.advance(15_000);
    const limited = await call(sim, '/projects');
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({
      error: 'rate_limit_exceeded',
      message: 'Too many requests. Please try again later.',
    });
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-consumed')).toBe('3');

    clock.advance(45_000);
    const again = await call(sim, '/status');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('keeps a budget per token', async () => {
    sim = await startDescriptSimulator({ size: 5, rateLimit: { limit: 1, windowMs: 60_000 } });
    expect((await call(sim, '/status')).status).toBe(200);
    expect((await call(sim, '/status')).status).toBe(429);
    expect((await call(sim, '/status', { token: sim.otherDrives[0]?.token ?? '' })).status).toBe(200);
  });

  it('gives published projects their own budget', async () => {
    sim = await startDescriptSimulator({
      size: 30,
      rateLimit: { limit: 1, windowMs: 60_000 },
      publishedRateLimit: { limit: 2, windowMs: 3_600_000 },
    });
    const [slug] = sim.state.publishSlugs(1);
    expect((await call(sim, '/status')).status).toBe(200);
    const first = await call(sim, `/published_projects/${slug}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await call(sim, `/published_projects/${slug}`)).status).toBe(200);
    const limited = await call(sim, `/published_projects/${slug}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
  });

  it('sends no budget headers when no general limit is set', async () => {
    sim = await startDescriptSimulator({ size: 5 });
    const answer = await call(sim, '/status');
    expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
  });
});
