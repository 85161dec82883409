import { writeAction } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import insurance, { createInsuranceConnector } from '../src/index.js';
import { QUOTE_REQUEST, useHarness } from './support.js';

const start = useHarness();
const compare = (connector: typeof insurance, options: ReturnType<Awaited<ReturnType<typeof start>>['options']>) =>
  writeAction(connector, 'hospital_cash_quotes.compare', options);

/** Most arrivals within any `windowMs` (half-open), the way a sliding-window provider counts. */
function peak(times: readonly number[], windowMs: number): number {
  return Math.max(0, ...times.map((end) => times.filter((at) => at > end - windowMs && at <= end).length));
}

describe('the compare action keeps to the hospital cash quote budget', () => {
  it("draws three requests per run from the budget the quote actions share, within the provider's sliding window", async () => {
    // The same actions with a smaller declared budget (6 a second instead of 60 a minute), so the
    // test takes a couple of seconds (14 quotes: the budget binds twice), against a provider that
    // counts the same budget over a sliding window.
    const connector = createInsuranceConnector({ rateLimits: { hospital_cash_quotes: { limit: 6, per: 'second' } } });
    const { sim, options } = await start({ budgets: { quotes: { limit: 6, windowMs: 1000 } } });
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => compare(connector, options(QUOTE_REQUEST))),
      writeAction(connector, 'hospital_cash_basic_quotes.create', options(QUOTE_REQUEST)),
      writeAction(connector, 'hospital_cash_plus_quotes.create', options(QUOTE_REQUEST)),
    ]);
    expect(results).toHaveLength(6);
    expect(sim.counters().quotesIssued).toBe(14);
    expect(sim.counters().byStatus).toEqual({ 201: 14 });
    expect(sim.counters().budgets.quotes.rejected).toBe(0);
    expect(sim.counters().budgets.quotes.peakInWindow).toBeLessThanOrEqual(6);
    expect(
      peak(
        sim.requests.map((request) => request.at),
        1000,
      ),
    ).toBeLessThanOrEqual(6);
  });

  it('leaves the other budget alone', async () => {
    const connector = createInsuranceConnector({ rateLimits: { hospital_cash_quotes: { limit: 3, per: 'minute' } } });
    const { sim, options } = await start();
    await compare(connector, options(QUOTE_REQUEST));
    // The quote budget is spent for a minute: a fourth quote waits, a motor quote does not.
    const waiting = new AbortController();
    const fourth = writeAction(
      connector,
      'hospital_cash_basic_quotes.create',
      options(QUOTE_REQUEST, { signal: waiting.signal }),
    ).catch((error: unknown) => error);
    await writeAction(connector, 'motor_quotes.create', options({ vehicle: { value: 1 } }));
    expect(sim.counters().budgets.other.admitted).toBe(1);
    expect(sim.counters().budgets.quotes.admitted).toBe(3);
    waiting.abort();
    expect(await fourth).toMatchObject({ code: 'cancelled' });
    expect(sim.counters().budgets.quotes.admitted).toBe(3);
  });
});

/** The real budget, 60 a minute: over a minute long, so opt in with PLUGBOARD_SLOW=1. */
describe.runIf(process.env.PLUGBOARD_SLOW === '1')('against the provider window at 60 a minute (slow, opt-in)', () => {
  it('25 compares (75 quotes) never exceed 60 a minute and earn no 429', async () => {
    const { sim, options } = await start();
    await Promise.all(Array.from({ length: 25 }, () => compare(insurance, options(QUOTE_REQUEST))));
    expect(sim.counters().quotesIssued).toBe(75);
    expect(sim.counters().budgets.quotes.rejected).toBe(0);
    expect(sim.counters().budgets.quotes.peakInWindow).toBeLessThanOrEqual(60);
  }, 150_000);
});
