import { describe, expect, it } from 'vitest';
import { call, quoteRequest, REQUEST_ID, useSimulators } from './harness.js';

const start = useSimulators();

describe('request ids', () => {
  it('puts X-Request-Id on every answer, success or error, and the same id in JSON error bodies', async () => {
    const sim = await start({ budgets: { quotes: { limit: 1 } } });
    sim.failNext({ kind: 'premium_timeout', path: '/v1/travel/policies', format: 'text' });
    const replies = [
      await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: quoteRequest() }), // 201
      await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: quoteRequest() }), // 429
      await call(sim, 'GET', '/v2/motor/quotes'), // 200
      await call(sim, 'GET', '/v2/motor/quotes', { auth: 'none' }), // 401
      await call(sim, 'POST', '/v2/motor/quotes', { body: {} }), // 422
      await call(sim, 'GET', '/v1/nowhere'), // 404
      await call(sim, 'DELETE', '/v2/motor/quotes'), // 405
      await call(sim, 'GET', '/v1/travel/policies'), // 503, bare text
    ];
    expect(replies.map((reply) => reply.status)).toEqual([201, 429, 200, 401, 422, 404, 405, 503]);
    const ids = replies.map((reply) => reply.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
    for (const reply of replies.filter((r) => r.status >= 400 && r.json)) {
      expect(reply.json.request_id).toBe(reply.headers.get('x-request-id'));
    }
    expect(sim.requests.map((request) => request.requestId)).toEqual(ids);
  });

  it('logs each request with its method, path, query, body, status and operation', async () => {
    const sim = await start();
    await call(sim, 'POST', '/v1/hospital-cash/classic/quotes', { body: quoteRequest() });
    await call(sim, 'GET', '/v1/hospital-cash/policies?limit=5');
    expect(sim.requests).toMatchObject([
      {
        method: 'POST',
        path: '/v1/hospital-cash/classic/quotes',
        query: '',
        body: quoteRequest(),
        status: 201,
        operation: 'hospital_cash.quote',
        at: expect.any(Number),
      },
      {
        method: 'GET',
        path: '/v1/hospital-cash/policies',
        query: 'limit=5',
        body: undefined,
        status: 200,
        operation: 'hospital-cash.policies.list',
      },
    ]);
    expect(sim.counters()).toMatchObject({ requests: 2, byStatus: { 200: 1, 201: 1 } });
  });

  it('listens on 127.0.0.1 only', async () => {
    const sim = await start();
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
    expect(sim.port).toBeGreaterThan(0);
  });
});
