import { ApprovalRequiredError, InvalidInputError, PagingLoopError, readAll, writeAction } from '@plugboard/sdk';
import { answer, startFaultServer } from '@plugboard/testing';
import { PASS_THROUGH_PATHS } from '@plugboard/simulator-insurance';
import { describe, expect, it } from 'vitest';
import insurance from '../src/index.js';
import { REQUEST_ID, useHarness } from './support.js';

const start = useHarness();

const RESOURCES = [
  {
    resource: 'motor_quotes',
    path: '/v2/motor/quotes',
    body: { vehicle: { value: '185000.00', make: 'Toyota' }, driver_age: 34 },
  },
  { resource: 'motor_policies', path: '/v2/motor/policies', body: { quote_id: 'mq_1', start: '2026-12-01' } },
  { resource: 'travel_policies', path: '/v1/travel/policies', body: { traveller: { name: 'Ada' }, destination: 'PT' } },
  {
    resource: 'homeowner_quotes',
    path: '/v1/homeowner/quotes',
    body: { property: { value: { amount: '2500000.00', currency: 'ZAR' } } },
  },
  { resource: 'hospital_cash_policies', path: '/v1/hospital-cash/policies', body: { quote_id: 'hcq_7f3a9c21' } },
] as const;

it('covers every pass-through path of the simulator', () => {
  expect(RESOURCES.map((resource) => resource.path).sort()).toEqual([...PASS_THROUGH_PATHS].sort());
});

describe.each(RESOURCES)('$resource', ({ resource, path, body }) => {
  it('creates with the body passed through as is, then lists it back', async () => {
    const { sim, options } = await start();
    const created = await writeAction(insurance, `${resource}.create`, options(body));
    expect(created).toMatchObject({ ...body, id: expect.any(String), created_at: expect.any(String) });
    expect(sim.requests[0]).toMatchObject({ method: 'POST', path, status: 201 });
    expect(sim.requests[0]!.body).toEqual(body);

    const { records, pages } = await readAll(insurance, `${resource}.list`, options({}));
    expect(records).toEqual([created]);
    expect(pages).toBe(1);
    expect(sim.requests[1]).toMatchObject({ method: 'GET', path, query: 'limit=100' });
  });

  it('reads every page with the cursor', async () => {
    const { sim, options } = await start();
    for (let index = 0; index < 5; index += 1)
      await writeAction(insurance, `${resource}.create`, options({ ...body, n: index }));
    const { records, pages } = await readAll(insurance, `${resource}.list`, options({ page_size: 2 }));
    expect(records.map((record) => (record as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
    expect(pages).toBe(3);
    const queries = sim.requests
      .filter((request) => request.method === 'GET')
      .map((request) => new URLSearchParams(request.query));
    expect(queries.map((query) => query.get('limit'))).toEqual(['2', '2', '2']);
    expect(queries[0]!.get('cursor')).toBeNull();
    expect(queries[1]!.get('cursor')).toBe((records[1] as { id: string }).id);
  });
});

describe('motor quote checks before sending', () => {
  it.each([
    ['no vehicle', {}, 'vehicle', /vehicle\.value is missing/],
    ['no vehicle value', { vehicle: { make: 'Toyota' } }, 'vehicle.value', /is required/],
    ['an empty vehicle value', { vehicle: { value: '' } }, 'vehicle.value', /is required/],
    ['a driver of 17', { vehicle: { value: 1000 }, driver_age: 17 }, 'driver_age', /from 18 to 75/],
    ['a driver of 76', { vehicle: { value: 1000 }, driver_age: 76 }, 'driver_age', /from 18 to 75/],
    ['a driver age as text', { vehicle: { value: 1000 }, driver_age: '30' }, 'driver_age', /from 18 to 75/],
  ])('refuses %s', async (_, body, path, message) => {
    const { sim, options } = await start();
    const error = await writeAction(insurance, 'motor_quotes.create', options(body)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues[0]).toMatchObject({ path, message: expect.stringMatching(message) });
    expect((error as Error).message).toMatch(/^insurance motor_quotes\.create: input: /);
    expect(sim.requests).toHaveLength(0);
  });

  it.each([18, 75, undefined])('accepts a driver age of %s', async (age) => {
    const { sim, options } = await start();
    await writeAction(
      insurance,
      'motor_quotes.create',
      options({ vehicle: { value: 1000 }, ...(age === undefined ? {} : { driver_age: age }) }),
    );
    expect(sim.counters().created['/v2/motor/quotes']).toBe(1);
  });
});

describe('policies bind real cover', () => {
  it.each(['motor_policies', 'travel_policies', 'hospital_cash_policies'])(
    '%s.create is sent exactly once on a 503',
    async (resource) => {
      const { sim, options } = await start();
      sim.failNext({ kind: 'underwriting_unavailable', status: 503 });
      const error = await writeAction(insurance, `${resource}.create`, options({ quote_id: 'q1' })).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: 'underwriting_unavailable', retryable: true, status: 503 });
      expect((error as { requestId: string }).requestId).toMatch(REQUEST_ID);
      expect(sim.counters().policyWrites).toBe(1);
      expect(sim.counters().policiesCreated).toBe(0);
      expect(sim.requests).toHaveLength(1);
    },
  );

  it('is not retried on a premium timeout either, while a quote is', async () => {
    const { sim, options } = await start();
    sim.failNext({ kind: 'premium_timeout', status: 503 });
    await expect(
      writeAction(insurance, 'hospital_cash_policies.create', options({ quote_id: 'q1' })),
    ).rejects.toMatchObject({
      code: 'premium_calculation_timeout',
    });
    expect(sim.counters().policyWrites).toBe(1);
    sim.failNext({ kind: 'premium_timeout', status: 503 });
    await writeAction(insurance, 'homeowner_quotes.create', options({ property: {} }));
    expect(
      sim.requests.filter((request) => request.path === '/v1/homeowner/quotes').map((request) => request.status),
    ).toEqual([503, 201]);
  });

  it('needs an approval in production, bound to the digest of exactly what runs', async () => {
    const { sim, options } = await start();
    const run = options({ quote_id: 'q1' }, { environment: 'production' });
    const error = await writeAction(insurance, 'travel_policies.create', run).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApprovalRequiredError);
    expect(sim.requests).toHaveLength(0);
    // The approver reviews the digest the refusal quotes, and someone other than the requester decides.
    const approval = {
      digest: (error as ApprovalRequiredError).digest,
      requestedBy: 'test-requester',
      decidedBy: 'test-approver',
      decision: 'approved' as const,
      expiresAt: null,
    };
    await writeAction(insurance, 'travel_policies.create', { ...run, approval });
    expect(sim.counters().policiesCreated).toBe(1);
  });

  it('quotes need no approval in production', async () => {
    const { options } = await start();
    await writeAction(
      insurance,
      'motor_quotes.create',
      options({ vehicle: { value: 1 } }, { environment: 'production' }),
    );
  });
});

describe('a provider whose cursor comes back', () => {
  it('is stopped with a short, typed error however long its cursor', async () => {
    const { transport } = await start();
    // Long, though short enough for the provider to take back in the query.
    const cursor = 'loop'.repeat(2_000);
    const server = await startFaultServer(
      answer({ status: 200, body: { data: [{ id: 'hq_1' }], next_cursor: cursor } }),
    );
    try {
      const error = await readAll(insurance, 'homeowner_quotes.list', {
        input: {},
        connection: { baseUrl: server.url },
        credential: () => 'insurance-key-123456',
        transport,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PagingLoopError);
      expect((error as Error).message).toMatch(/page 2 holds the same records as the page before it/);
      expect((error as Error).message.length).toBeLessThan(1_000);
      // The second page repeats the first one's records.
      expect(server.count).toBe(2);
    } finally {
      await server.close();
    }
  });
});
