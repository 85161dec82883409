import { describe, expect, it } from 'vitest';
import {
  FAILURE_CODES,
  FAILURE_KINDS,
  LOGGED_STATUSES,
  failureMessage,
  failureMessages,
  type FailureKind,
} from '../src/index.js';
import { call, quoteRequest, REQUEST_ID, useSimulators } from './harness.js';

const start = useSimulators();

const QUOTE = '/v1/hospital-cash/basic/quotes';

/** The canonical message of each kind as the simulator words it on this path. */
const CANONICAL: Record<FailureKind, string> = {
  missing_field: 'Missing required field: vehicle.value',
  out_of_range: 'driver_age must be between 18 and 75',
  coverage_not_supported: "Coverage type 'hospital_cash_basic' is not supported in region 'ZA-NC'",
  premium_timeout: 'Premium calculation timed out, please retry',
  underwriting_unavailable: 'Underwriting service unavailable',
  missing_auth: 'Missing Authorization header',
  rate_limited: 'Rate limit exceeded (120 per minute)',
};

const everyCombination = FAILURE_KINDS.flatMap((kind) => LOGGED_STATUSES.map((status) => [kind, status] as const));

describe('failures on demand with failNext', () => {
  it.each(everyCombination)('answers %s with status %i', async (kind, status) => {
    const sim = await start();
    sim.failNext({ kind, status });
    const reply = await call(sim, 'POST', QUOTE, { body: quoteRequest() });
    expect(reply.status).toBe(status);
    expect(reply.json).toMatchObject({
      error: FAILURE_CODES[kind],
      message: CANONICAL[kind],
      request_id: reply.headers.get('x-request-id'),
    });
    expect(reply.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(reply.headers.get('retry-after')).toBe(status === 429 ? '1' : null);
    expect(sim.requests.at(-1)?.failure).toEqual({ kind, source: 'scripted' });
    expect(sim.counters().injected[kind]).toBe(1);
    // Used once: the next request is answered normally.
    expect((await call(sim, 'POST', QUOTE, { body: quoteRequest() })).status).toBe(201);
  });

  it('names the field of missing_field and out_of_range failures', async () => {
    const sim = await start();
    sim.failNext({ kind: 'missing_field', field: 'applicant.date_of_birth' });
    sim.failNext({ kind: 'out_of_range' });
    const missing = await call(sim, 'POST', QUOTE, { body: quoteRequest() });
    expect(missing.json).toMatchObject({
      field: 'applicant.date_of_birth',
      message: 'Missing required field: applicant.date_of_birth',
    });
    const range = await call(sim, 'POST', QUOTE, { body: quoteRequest() });
    expect(range.json).toMatchObject({ field: 'driver_age' });
  });

  it('uses each kind’s typical status when none is given', async () => {
    const sim = await start();
    const typical: Record<FailureKind, number> = {
      missing_field: 422,
      out_of_range: 422,
      coverage_not_supported: 422,
      premium_timeout: 503,
      underwriting_unavailable: 503,
      missing_auth: 401,
      rate_limited: 429,
    };
    for (const kind of FAILURE_KINDS) {
      sim.failNext({ kind });
      expect((await call(sim, 'GET', '/v2/motor/quotes')).status).toBe(typical[kind]);
    }
  });

  it('fails the next N matching requests only, leaving other paths and methods alone', async () => {
    const sim = await start();
    sim.failNext({ kind: 'underwriting_unavailable', times: 2, path: '/v1/hospital-cash/plus/quotes', method: 'post' });
    expect((await call(sim, 'POST', QUOTE, { body: quoteRequest() })).status).toBe(201);
    expect((await call(sim, 'GET', '/v1/hospital-cash/policies')).status).toBe(200);
    expect(sim.pendingFailures()).toBe(2);
    const plus = () => call(sim, 'POST', '/v1/hospital-cash/plus/quotes', { body: quoteRequest() });
    expect([(await plus()).status, (await plus()).status, (await plus()).status]).toEqual([503, 503, 201]);
    expect(sim.pendingFailures()).toBe(0);
  });

  it('plays scripted failures in the order they were scripted, and can be cleared', async () => {
    const sim = await start();
    sim.failNext({ kind: 'premium_timeout', status: 400 });
    sim.failNext({ kind: 'rate_limited', status: 503 });
    sim.failNext({ kind: 'missing_auth' });
    expect((await call(sim, 'GET', '/v1/travel/policies')).json.message).toBe(CANONICAL.premium_timeout);
    expect((await call(sim, 'GET', '/v1/travel/policies')).json.message).toBe(CANONICAL.rate_limited);
    sim.clearFailures();
    expect((await call(sim, 'GET', '/v1/travel/policies')).status).toBe(200);
  });

  it('has several wordings per kind, each keeping the words a classifier keys on', async () => {
    const sim = await start();
    const keys: Record<FailureKind, RegExp> = {
      missing_field: /vehicle\.value/,
      out_of_range: /driver_age.*18.*75/,
      coverage_not_supported: /coverage type.*not supported.*region/i,
      premium_timeout: /premium.*tim|tim.*premium/i,
      underwriting_unavailable: /underwriting/i,
      missing_auth: /authorization header/i,
      rate_limited: /rate limit exceeded \(120 per minute\)/i,
    };
    for (const kind of FAILURE_KINDS) {
      const wordings = failureMessages(kind);
      expect(new Set(wordings).size).toBe(3);
      for (const [variant, wording] of wordings.entries()) {
        expect(wording).toMatch(keys[kind]);
        sim.failNext({ kind, variant });
        expect((await call(sim, 'GET', '/v2/motor/policies')).json.message).toBe(wording);
      }
    }
  });

  it('names the coverage type and region it is given', async () => {
    const sim = await start();
    sim.failNext({ kind: 'coverage_not_supported', coverage: 'flood', region: 'ZA-KZN' });
    expect((await call(sim, 'POST', '/v1/homeowner/quotes', { body: {} })).json.message).toBe(
      "Coverage type 'flood' is not supported in region 'ZA-KZN'",
    );
    expect(failureMessage('coverage_not_supported', {}, 0)).toContain("'motor_comprehensive'");
  });

  it('answers with a bare-text body or a problem document when asked', async () => {
    const sim = await start();
    sim.failNext({ kind: 'premium_timeout', status: 503, format: 'text' });
    sim.failNext({ kind: 'underwriting_unavailable', status: 503, format: 'problem' });
    const text = await call(sim, 'POST', QUOTE, { body: quoteRequest() });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.text).toBe('Premium calculation timed out, please retry');
    expect(text.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const problem = await call(sim, 'POST', QUOTE, { body: quoteRequest() });
    expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problem.json).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'Underwriting service unavailable',
      instance: QUOTE,
    });
  });

  it('sets or omits Retry-After as told', async () => {
    const sim = await start();
    sim.failNext({ kind: 'rate_limited', status: 429, retryAfterSeconds: 7 });
    sim.failNext({ kind: 'rate_limited', status: 429, retryAfterSeconds: null });
    sim.failNext({ kind: 'underwriting_unavailable', status: 503, retryAfterSeconds: 30 });
    const headers = [];
    for (let i = 0; i < 3; i += 1)
      headers.push((await call(sim, 'GET', '/v2/motor/quotes')).headers.get('retry-after'));
    expect(headers).toEqual(['7', null, '30']);
  });

  it('still answers a real 401 before a scripted failure, without using it', async () => {
    const sim = await start();
    sim.failNext({ kind: 'premium_timeout' });
    const reply = await call(sim, 'POST', QUOTE, { body: quoteRequest(), auth: 'none' });
    expect(reply.json.error).toBe('missing_authorization');
    expect(sim.pendingFailures()).toBe(1);
  });

  it('refuses a malformed script', async () => {
    const sim = await start();
    expect(() => sim.failNext({ kind: 'meteor_strike' as FailureKind })).toThrow(/unknown failure kind/);
    expect(() => sim.failNext({ kind: 'premium_timeout', status: 500 as 503 })).toThrow(/status/);
    expect(() => sim.failNext({ kind: 'premium_timeout', times: 0 })).toThrow(/times/);
    expect(() => sim.failNext({ kind: 'premium_timeout', variant: 3 })).toThrow(/variant/);
  });
});

describe('failures asked for in X-Simulate-Failure', () => {
  it.each(everyCombination)('answers %s:%i when the header is allowed', async (kind, status) => {
    const sim = await start({ allowFailureHeader: true });
    const reply = await call(sim, 'POST', QUOTE, {
      body: quoteRequest(),
      headers: { 'x-simulate-failure': `${kind}:${status}` },
    });
    expect(reply.status).toBe(status);
    expect(reply.json).toMatchObject({ error: FAILURE_CODES[kind], message: CANONICAL[kind] });
    expect(sim.requests.at(-1)?.failure).toEqual({ kind, source: 'header' });
  });

  it('takes the typical status when only the kind is given, and a body format as third part', async () => {
    const sim = await start({ allowFailureHeader: true });
    expect(
      (await call(sim, 'GET', '/v2/motor/quotes', { headers: { 'x-simulate-failure': 'premium_timeout' } })).status,
    ).toBe(503);
    const text = await call(sim, 'GET', '/v2/motor/quotes', {
      headers: { 'x-simulate-failure': 'missing_auth:400:text' },
    });
    expect([text.status, text.text]).toEqual([400, 'Missing Authorization header']);
  });

  it('answers 400 to a header it cannot read', async () => {
    const sim = await start({ allowFailureHeader: true });
    for (const header of ['meteor_strike:503', 'premium_timeout:500', 'premium_timeout:503:xml', 'a:b:c:d']) {
      const reply = await call(sim, 'GET', '/v2/motor/quotes', { headers: { 'x-simulate-failure': header } });
      expect(reply.status).toBe(400);
      expect(reply.json.error).toBe('invalid_simulation_header');
    }
  });

  it('ignores the header unless the option allows it', async () => {
    const sim = await start();
    const reply = await call(sim, 'POST', QUOTE, {
      body: quoteRequest(),
      headers: { 'x-simulate-failure': 'premium_timeout:503' },
    });
    expect(reply.status).toBe(201);
  });
});

describe('random failures', () => {
  const rates = { premium_timeout: 0.1, underwriting_unavailable: 0.1, rate_limited: 0.05 };
  const generous = { other: { limit: 10_000 } };

  async function run(seed: number, extra: Record<string, unknown> = {}): Promise<string[]> {
    const sim = await start({ seed, failureRates: rates, budgets: generous, ...extra });
    const outcomes: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const reply = await call(sim, 'GET', '/v2/motor/quotes');
      outcomes.push(`${reply.status} ${reply.json?.message ?? reply.text}`);
    }
    return outcomes;
  }

  /** The outcomes of seed 42, drawn once for the tests that read them. */
  let seed42: Promise<string[]> | undefined;
  const runSeed42 = () => (seed42 ??= run(42));

  it('repeats exactly for the same seed and differs for another', async () => {
    const first = await runSeed42();
    expect(await run(42)).toEqual(first);
    expect(await run(7)).not.toEqual(first);
  });

  it('fails at about the configured rates, with the kinds asked for', async () => {
    const outcomes = await runSeed42();
    const failed = outcomes.filter((outcome) => !outcome.startsWith('200'));
    // 25% of 200 is 50; a fair generator lands well within 25..75.
    expect(failed.length).toBeGreaterThan(25);
    expect(failed.length).toBeLessThan(75);
    for (const outcome of failed) expect(outcome).toMatch(/^(503 .*(premium|underwriting)|429 .*rate limit)/i);
  });

  it('draws any logged status and bare-text bodies when told to', async () => {
    const outcomes = await run(3, { failureStatuses: 'any', textErrorRate: 0.5 });
    const statuses = new Set(outcomes.map((outcome) => Number(outcome.slice(0, 3))).filter((status) => status !== 200));
    expect([...statuses].every((status) => (LOGGED_STATUSES as readonly number[]).includes(status))).toBe(true);
    expect(statuses.size).toBeGreaterThanOrEqual(4);
  });

  it('answers some random failures as bare text', async () => {
    const sim = await start({ seed: 5, failureRates: { premium_timeout: 1 }, textErrorRate: 0.5, budgets: generous });
    const types = new Set<string>();
    for (let i = 0; i < 20; i += 1)
      types.add((await call(sim, 'GET', '/v2/motor/quotes')).headers.get('content-type') ?? '');
    expect([...types].sort()).toEqual(['application/json; charset=utf-8', 'text/plain; charset=utf-8']);
  });

  it('refuses rates that cannot be probabilities', async () => {
    await expect(start({ failureRates: { premium_timeout: 0.7, rate_limited: 0.6 } })).rejects.toThrow(/more than 1/);
    await expect(start({ failureRates: { premium_timeout: -0.1 } })).rejects.toThrow(/from 0 to 1/);
  });
});
