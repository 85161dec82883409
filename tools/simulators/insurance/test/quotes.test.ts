import { describe, expect, it } from 'vitest';
import { quotePremium } from '../src/index.js';
import { call, quoteRequest, REQUEST_ID, useSimulators } from './harness.js';

const start = useSimulators();

describe('POST /v1/hospital-cash/{tier}/quotes', () => {
  it.each([
    ['basic', '500.00', '3500.00', '65.90'],
    ['classic', '750.00', '5250.00', '96.40'],
    ['plus', '1200.00', '8400.00', '149.30'],
  ])(
    'answers a %s quote with the daily benefit, daily x days and a deterministic premium',
    async (tier, daily, maximum, premium) => {
      const sim = await start();
      const reply = await call(sim, 'POST', `/v1/hospital-cash/${tier}/quotes`, {
        body: quoteRequest({ cover_start: '2026-12-01' }),
      });
      expect(reply.status).toBe(201);
      expect(reply.json).toEqual({
        quote_id: expect.stringMatching(/^hcq_[0-9a-f]+$/),
        product: 'hospital_cash',
        tier,
        cause: 'illness',
        confinement_days: 7,
        daily_benefit: { amount: daily, currency: 'ZAR' },
        maximum_benefit: { amount: maximum, currency: 'ZAR' },
        premium: { amount: premium, currency: 'ZAR', frequency: 'monthly' },
        valid_until: '2026-12-21T00:00:00Z',
        created_at: '2026-11-21T10:04:11Z',
      });
      expect(reply.json.premium).toEqual({
        ...quotePremium({ tier: tier as 'basic', age: 38, cause: 'illness', confinementDays: 7 }).premium,
        frequency: 'monthly',
      });
    },
  );

  it('gives the same premium for the same tier, age, cause and days, and a new quote id each time', async () => {
    const sim = await start();
    const body = quoteRequest({ cause: 'accidental_injury', confinement_days: 12 });
    const first = await call(sim, 'POST', '/v1/hospital-cash/plus/quotes', { body });
    const second = await call(sim, 'POST', '/v1/hospital-cash/plus/quotes', { body });
    expect(first.json.premium).toEqual(second.json.premium);
    expect(first.json.maximum_benefit.amount).toBe('14400.00');
    expect(first.json.quote_id).not.toBe(second.json.quote_id);
    expect(sim.counters().quotesIssued).toBe(2);
  });

  it('prices with the age on the simulator clock', async () => {
    const sim = await start({ clock: () => Date.UTC(2046, 10, 21) });
    const reply = await call(sim, 'POST', '/v1/hospital-cash/classic/quotes', { body: quoteRequest() });
    expect(reply.json.premium.amount).toBe(
      quotePremium({ tier: 'classic', age: 58, cause: 'illness', confinementDays: 7 }).premium.amount,
    );
  });

  it('uses the configured currency for every amount', async () => {
    const sim = await start({ currency: 'USD' });
    const reply = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: quoteRequest() });
    expect([
      reply.json.daily_benefit.currency,
      reply.json.maximum_benefit.currency,
      reply.json.premium.currency,
    ]).toEqual(['USD', 'USD', 'USD']);
  });

  it.each([
    [1, 'value_out_of_range'],
    [21, 'value_out_of_range'],
    [7.5, 'invalid_value'],
    ['7', 'invalid_value'],
  ])('refuses confinement_days %j with 422 naming the field', async (days, code) => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', {
      body: quoteRequest({ confinement_days: days }),
    });
    expect(reply.status).toBe(422);
    expect(reply.json).toEqual({
      error: code,
      message: 'confinement_days must be an integer from 2 to 20',
      request_id: reply.headers.get('x-request-id'),
      field: 'confinement_days',
    });
  });

  it('accepts both ends of the confinement period', async () => {
    const sim = await start();
    for (const days of [2, 20]) {
      const reply = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', {
        body: quoteRequest({ confinement_days: days }),
      });
      expect(reply.status).toBe(201);
    }
  });

  it.each([
    [
      'a missing date of birth',
      { applicant: {} },
      'applicant.date_of_birth',
      'Missing required field: applicant.date_of_birth',
    ],
    [
      'a missing applicant',
      { applicant: undefined },
      'applicant.date_of_birth',
      'Missing required field: applicant.date_of_birth',
    ],
    [
      'a date of birth that is no date',
      { applicant: { date_of_birth: '1988-02-30' } },
      'applicant.date_of_birth',
      'applicant.date_of_birth must be a date in YYYY-MM-DD form',
    ],
    [
      'a date of birth in the future',
      { applicant: { date_of_birth: '2026-11-22' } },
      'applicant.date_of_birth',
      'applicant.date_of_birth must not be in the future',
    ],
    ['a missing cause', { cause: undefined }, 'cause', 'Missing required field: cause'],
    ['an unknown cause', { cause: 'sickness' }, 'cause', 'cause must be one of illness, accidental_injury'],
    ['missing days', { confinement_days: undefined }, 'confinement_days', 'Missing required field: confinement_days'],
    ['a cover start in the past', { cover_start: '2026-11-20' }, 'cover_start', 'cover_start must not be in the past'],
    [
      'a cover start that is no date',
      { cover_start: 'next week' },
      'cover_start',
      'cover_start must be a date in YYYY-MM-DD form',
    ],
  ])('refuses %s with 422 naming the field', async (_case, overrides, field, message) => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v1/hospital-cash/classic/quotes', { body: quoteRequest(overrides) });
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({ field, message, request_id: expect.stringMatching(REQUEST_ID) });
  });

  it('accepts a cover start of today', async () => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v1/hospital-cash/classic/quotes', {
      body: quoteRequest({ cover_start: '2026-11-21' }),
    });
    expect(reply.status).toBe(201);
  });

  it('answers 400 to a body that is not a JSON object', async () => {
    const sim = await start();
    const malformed = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { rawBody: '{"cause":' });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ error: 'invalid_json', message: 'Request body is not valid JSON' });
    const array = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: [quoteRequest()] });
    expect(array.status).toBe(400);
    expect(array.json.message).toBe('Request body must be a JSON object');
  });

  it('answers 404 for an unknown tier and 405 for GET on a quote operation', async () => {
    const sim = await start();
    const unknown = await call(sim, 'POST', '/v1/hospital-cash/gold/quotes', { body: quoteRequest() });
    expect(unknown.status).toBe(404);
    const get = await call(sim, 'GET', '/v1/hospital-cash/basic/quotes');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
