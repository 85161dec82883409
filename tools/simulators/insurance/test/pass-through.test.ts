import { describe, expect, it } from 'vitest';
import { PASS_THROUGH_PATHS } from '../src/index.js';
import { call, useSimulators } from './harness.js';

const start = useSimulators();

describe('pass-through operations', () => {
  it.each(PASS_THROUGH_PATHS)('POST %s keeps the object with an id and created_at, and GET lists it', async (path) => {
    const sim = await start();
    const posted = { vehicle: { value: '250000.00' }, driver_age: 40, note: { nested: [1, 2] } };
    const created = await call(sim, 'POST', path, { body: posted });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      ...posted,
      id: expect.stringMatching(/^[a-z]+_[0-9a-f]{16}$/),
      created_at: '2026-11-21T10:04:11Z',
    });
    const listed = await call(sim, 'GET', path);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ data: [created.json], next_cursor: null });
    expect(sim.stored(path)).toEqual([created.json]);
  });

  it('keeps each collection apart and replaces an id the client sent', async () => {
    const sim = await start();
    const created = await call(sim, 'POST', '/v1/travel/policies', { body: { id: 'mine', trip: 'Cape Town' } });
    expect(created.json.id).not.toBe('mine');
    expect((await call(sim, 'GET', '/v1/homeowner/quotes')).json.data).toEqual([]);
  });

  it('pages lists oldest first with limit and next_cursor', async () => {
    const sim = await start();
    const ids: string[] = [];
    for (let n = 1; n <= 5; n += 1)
      ids.push((await call(sim, 'POST', '/v1/homeowner/quotes', { body: { n } })).json.id);

    const seen: string[] = [];
    const cursors: Array<string | null> = [];
    let cursor: string | null = '';
    do {
      const page = await call(sim, 'GET', `/v1/homeowner/quotes?limit=2&cursor=${cursor ?? ''}`);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data.map((record: { id: string }) => record.id));
      cursor = page.json.next_cursor;
      cursors.push(cursor);
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(cursors).toEqual([ids[1], ids[3], null]);

    const exact = await call(sim, 'GET', '/v1/homeowner/quotes?limit=5');
    expect(exact.json.next_cursor).toBeNull();
  });

  it('returns 20 records by default and refuses bad paging parameters', async () => {
    const sim = await start();
    for (let n = 0; n < 25; n += 1) await call(sim, 'POST', '/v2/motor/policies', { body: { n } });
    const first = await call(sim, 'GET', '/v2/motor/policies');
    expect(first.json.data).toHaveLength(20);
    expect(first.json.next_cursor).toBe(first.json.data[19].id);

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=mp_nope', 'cursor'],
    ]) {
      const reply = await call(sim, 'GET', `/v2/motor/policies?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.json.field).toBe(field);
    }
  });

  it('counts billable policy writes, not quotes', async () => {
    const sim = await start();
    await call(sim, 'POST', '/v2/motor/policies', { body: { quote_id: 'mq_1' } });
    await call(sim, 'POST', '/v1/travel/policies', { body: {} });
    await call(sim, 'POST', '/v1/hospital-cash/policies', { body: { quote_id: 'hcq_1' } });
    await call(sim, 'POST', '/v1/homeowner/quotes', { body: {} });
    const counters = sim.counters();
    expect(counters.policiesCreated).toBe(3);
    expect(counters.policyWrites).toBe(3);
    expect(counters.created).toEqual({
      '/v2/motor/quotes': 0,
      '/v2/motor/policies': 1,
      '/v1/travel/policies': 1,
      '/v1/homeowner/quotes': 1,
      '/v1/hospital-cash/policies': 1,
    });
  });

  it('does not store a policy when the write is answered with a failure', async () => {
    const sim = await start();
    sim.failNext({ kind: 'underwriting_unavailable', path: '/v1/hospital-cash/policies' });
    expect((await call(sim, 'POST', '/v1/hospital-cash/policies', { body: {} })).status).toBe(503);
    expect(sim.counters()).toMatchObject({ policyWrites: 1, policiesCreated: 0 });
  });

  it('answers 400 to a body that is not a JSON object', async () => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v1/travel/policies', { rawBody: 'trip=yes' });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toBe('invalid_json');
    expect(sim.requests.at(-1)?.body).toBe('trip=yes');
  });
});

describe('motor quote checks', () => {
  const motorQuote = (overrides: Record<string, unknown> = {}) => ({
    vehicle: { value: '180000.00', make: 'Toyota' },
    driver_age: 34,
    ...overrides,
  });

  it.each([
    ['no vehicle', { vehicle: undefined }],
    ['a vehicle without a value', { vehicle: { make: 'Toyota' } }],
    ['a null value', { vehicle: { value: null } }],
  ])('refuses %s with 422 "Missing required field: vehicle.value"', async (_case, overrides) => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v2/motor/quotes', { body: motorQuote(overrides) });
    expect(reply.status).toBe(422);
    expect(reply.json).toEqual({
      error: 'missing_required_field',
      message: 'Missing required field: vehicle.value',
      request_id: reply.headers.get('x-request-id'),
      field: 'vehicle.value',
    });
    expect(sim.stored('/v2/motor/quotes')).toHaveLength(0);
  });

  it.each([17, 76, '30'])('refuses driver_age %j with 422 "driver_age must be between 18 and 75"', async (age) => {
    const sim = await start();
    const reply = await call(sim, 'POST', '/v2/motor/quotes', { body: motorQuote({ driver_age: age }) });
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({
      error: 'value_out_of_range',
      message: 'driver_age must be between 18 and 75',
      field: 'driver_age',
    });
  });

  it.each([18, 75])('accepts driver_age %i', async (age) => {
    const sim = await start();
    expect((await call(sim, 'POST', '/v2/motor/quotes', { body: motorQuote({ driver_age: age }) })).status).toBe(201);
  });

  it('applies the checks to motor quotes only', async () => {
    const sim = await start();
    expect((await call(sim, 'POST', '/v2/motor/policies', { body: { driver_age: 90 } })).status).toBe(201);
  });
});
