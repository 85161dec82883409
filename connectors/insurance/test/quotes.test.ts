import { InvalidInputError, writeAction } from '@plugboard/sdk';
import { ageOn, quotePremium, TIERS } from '@plugboard/simulator-insurance';
import { describe, expect, it } from 'vitest';
import insurance, { HospitalCashComparison, HospitalCashQuote } from '../src/index.js';
import { QUOTE_REQUEST, REQUEST_ID, useHarness } from './support.js';

const start = useHarness();
const today = () => new Date().toISOString().slice(0, 10);
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('hospital cash quotes, one action per tier', () => {
  it.each(TIERS)('quotes the %s tier with money as decimal strings', async (tier) => {
    const { sim, options } = await start();
    const quote = HospitalCashQuote.parse(
      await writeAction(
        insurance,
        `hospital_cash_${tier}_quotes.create`,
        options({ ...QUOTE_REQUEST, cover_start: daysFromToday(10) }),
      ),
    );
    const expected = quotePremium({ tier, age: ageOn('1988-04-12', Date.now()), cause: 'illness', confinementDays: 7 });
    expect(quote).toMatchObject({ product: 'hospital_cash', tier, cause: 'illness', confinement_days: 7 });
    expect(quote.daily_benefit).toEqual(expected.dailyBenefit);
    expect(quote.maximum_benefit).toEqual(expected.maximumBenefit);
    expect(quote.premium).toEqual({ ...expected.premium, frequency: 'monthly' });
    expect(typeof quote.premium.amount).toBe('string');
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({ method: 'POST', path: `/v1/hospital-cash/${tier}/quotes`, status: 201 });
    expect(sim.requests[0]!.body).toEqual({ ...QUOTE_REQUEST, cover_start: daysFromToday(10) });
  });

  it('accepts a cover start of today and an accidental injury', async () => {
    const { options } = await start();
    const quote = await writeAction(
      insurance,
      'hospital_cash_plus_quotes.create',
      options({ ...QUOTE_REQUEST, cause: 'accidental_injury', cover_start: today() }),
    );
    expect(quote).toMatchObject({ tier: 'plus', cause: 'accidental_injury' });
  });
});

describe('input refused before any request is sent', () => {
  it.each([
    ['1', 1],
    ['21', 21],
    ['7.5', 7.5],
    ['the string "7"', '7'],
  ])('confinement_days of %s', async (_, days) => {
    const { sim, options } = await start();
    for (const key of [
      'hospital_cash_basic_quotes.create',
      'hospital_cash_classic_quotes.create',
      'hospital_cash_plus_quotes.create',
      'hospital_cash_quotes.compare',
    ]) {
      const error = await writeAction(insurance, key, options({ ...QUOTE_REQUEST, confinement_days: days })).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).issues).toEqual([
        {
          path: 'confinement_days',
          message: `must be a whole number of days from 2 to 20, not ${JSON.stringify(days)}`,
        },
      ]);
      expect((error as InvalidInputError).message).toContain(
        'confinement_days: must be a whole number of days from 2 to 20',
      );
    }
    expect(sim.requests).toHaveLength(0);
  });

  it.each([
    [
      'a cover start in the past',
      { cover_start: '2020-01-01' },
      'cover_start',
      /must not be in the past \(today is \d{4}-\d{2}-\d{2} UTC\), not "2020-01-01"/,
    ],
    ['a cover start that is no date', { cover_start: '2027-02-30' }, 'cover_start', /YYYY-MM-DD/],
    ['a cause not offered', { cause: 'maternity' }, 'cause', /must be one of illness, accidental_injury/],
    [
      'a date of birth in the future',
      { applicant: { date_of_birth: daysFromToday(3) } },
      'applicant.date_of_birth',
      /must not be in the future/,
    ],
    ['a missing date of birth', { applicant: {} }, 'applicant.date_of_birth', /./],
    ['a field not in the contract', { smoker: true }, '', /smoker/],
  ])('%s', async (_, change, path, message) => {
    const { sim, options } = await start();
    const error = await writeAction(
      insurance,
      'hospital_cash_basic_quotes.create',
      options({ ...QUOTE_REQUEST, ...change }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    const issue = (error as InvalidInputError).issues[0]!;
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });
});

describe('hospital_cash_quotes.compare', () => {
  it('quotes all three tiers and returns them cheapest first with exact decimal strings', async () => {
    const { sim, options } = await start();
    const result = HospitalCashComparison.parse(
      await writeAction(insurance, 'hospital_cash_quotes.compare', options(QUOTE_REQUEST)),
    );
    expect(sim.requests.map((request) => request.path).sort()).toEqual(
      TIERS.map((tier) => `/v1/hospital-cash/${tier}/quotes`).sort(),
    );
    expect(sim.counters().quotesIssued).toBe(3);

    const age = ageOn('1988-04-12', Date.now());
    const expected = TIERS.map((tier) => ({
      tier,
      ...quotePremium({ tier, age, cause: 'illness', confinementDays: 7 }),
    })).sort((a, b) => cents(a.premium.amount) - cents(b.premium.amount));
    expect(result.quotes.map((quote) => quote.tier)).toEqual(expected.map((quote) => quote.tier));
    expect(result.cheapest_tier).toBe(expected[0]!.tier);
    expect(result.currency).toBe('ZAR');
    expect(result).toMatchObject({ cause: 'illness', confinement_days: 7 });
    for (const [index, quote] of result.quotes.entries()) {
      expect(quote.premium).toEqual({ ...expected[index]!.premium, frequency: 'monthly' });
      expect(quote.maximum_benefit).toEqual(expected[index]!.maximumBenefit);
      expect(quote.benefit_per_premium).toBe(
        ratio(expected[index]!.maximumBenefit.amount, expected[index]!.premium.amount),
      );
    }
    const premiums = result.quotes.map((quote) => cents(quote.premium.amount));
    expect([...premiums].sort((a, b) => a - b)).toEqual(premiums);
  });

  it.each([
    ['accidental_injury', 2, '1950-01-01'],
    ['illness', 20, '2001-06-30'],
  ])('orders the tiers for %s over %i days', async (cause, days, birth) => {
    const { options } = await start();
    const result = HospitalCashComparison.parse(
      await writeAction(
        insurance,
        'hospital_cash_quotes.compare',
        options({ applicant: { date_of_birth: birth }, cause, confinement_days: days }),
      ),
    );
    const age = ageOn(birth, Date.now());
    for (const quote of result.quotes) {
      const expected = quotePremium({ tier: quote.tier, age, cause: cause as 'illness', confinementDays: days });
      expect(quote.premium.amount).toBe(expected.premium.amount);
      expect(quote.benefit_per_premium).toBe(ratio(expected.maximumBenefit.amount, expected.premium.amount));
    }
  });

  it('fails with the request id of the failing tier, and quotes are retried as safe', async () => {
    const { sim, options } = await start();
    sim.failNext({ kind: 'premium_timeout', path: '/v1/hospital-cash/classic/quotes', times: 1 });
    const result = HospitalCashComparison.parse(
      await writeAction(insurance, 'hospital_cash_quotes.compare', options(QUOTE_REQUEST)),
    );
    expect(result.quotes).toHaveLength(3);
    expect(sim.counters().injected.premium_timeout).toBe(1);
    expect(sim.requests).toHaveLength(4);

    sim.failNext({ kind: 'coverage_not_supported', path: '/v1/hospital-cash/plus/quotes' });
    const error = await writeAction(insurance, 'hospital_cash_quotes.compare', options(QUOTE_REQUEST)).catch(
      (caught: unknown) => caught,
    );
    const failed = sim.requests.find((request) => request.failure?.kind === 'coverage_not_supported')!;
    expect(error).toMatchObject({
      code: 'coverage_not_supported',
      requestId: failed.requestId,
      coverage: 'hospital_cash_plus',
      region: 'ZA-NC',
    });
    expect(failed.requestId).toMatch(REQUEST_ID);
  });
});

/** Test-side arithmetic, independent of the connector's: cents as numbers, fine below 2^53. */
function cents(amount: string): number {
  const [whole, fraction] = amount.split('.');
  return Number(whole) * 100 + Number(fraction);
}

/** maximum / premium with four places, rounded half up, by long division on BigInt. */
function ratio(maximum: string, premium: string): string {
  const scaled = (BigInt(cents(maximum)) * 20_000n + BigInt(cents(premium))) / (2n * BigInt(cents(premium)));
  return `${scaled / 10_000n}.${String(scaled % 10_000n).padStart(4, '0')}`;
}
