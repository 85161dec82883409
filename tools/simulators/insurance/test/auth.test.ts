import { describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../src/index.js';
import { call, quoteRequest, useSimulators } from './harness.js';

const start = useSimulators();

describe('authentication', () => {
  it('accepts the key as a bearer token and as X-Api-Key', async () => {
    const sim = await start();
    const bearer = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: quoteRequest(), auth: 'bearer' });
    const apiKey = await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', {
      body: quoteRequest(),
      auth: 'x-api-key',
    });
    expect([bearer.status, apiKey.status]).toEqual([201, 201]);
  });

  it('answers 401 "Missing Authorization header" when no key is sent', async () => {
    const sim = await start();
    const reply = await call(sim, 'GET', '/v2/motor/policies', { auth: 'none' });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({
      error: 'missing_authorization',
      message: 'Missing Authorization header',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it.each(['bearer', 'x-api-key'] as const)('answers 401 to a wrong key sent as %s', async (auth) => {
    const sim = await start();
    const reply = await call(sim, 'GET', '/v2/motor/policies', { auth, key: 'not-the-key' });
    expect(reply.status).toBe(401);
    expect(reply.json).toMatchObject({ error: 'invalid_api_key', message: 'Invalid API key' });
  });

  it('answers 401 to an Authorization header that is not a bearer token', async () => {
    const sim = await start();
    const reply = await call(sim, 'GET', '/v2/motor/policies', {
      auth: 'none',
      headers: { authorization: `Basic ${Buffer.from(`user:${sim.apiKey}`).toString('base64')}` },
    });
    expect(reply.status).toBe(401);
  });

  it('takes a configured key, and the default one is an obvious fake', async () => {
    const sim = await start({ apiKey: 'test-key-123' });
    expect(sim.apiKey).toBe('test-key-123');
    expect((await call(sim, 'GET', '/v1/travel/policies')).status).toBe(200);
    expect((await call(sim, 'GET', '/v1/travel/policies', { key: DEFAULT_API_KEY })).status).toBe(401);
    expect(DEFAULT_API_KEY).toMatch(/fake/);
  });

  it('does not spend the budget on unauthenticated requests', async () => {
    const sim = await start();
    await call(sim, 'POST', '/v1/hospital-cash/basic/quotes', { body: quoteRequest(), auth: 'none' });
    expect(sim.counters().budgets.quotes.admitted).toBe(0);
  });

  it('keeps credentials out of the request log', async () => {
    const sim = await start();
    await call(sim, 'GET', '/v1/travel/policies', { auth: 'bearer', headers: { 'x-trace': 'abc' } });
    await call(sim, 'GET', '/v1/travel/policies', { auth: 'x-api-key' });
    expect(sim.requests).toHaveLength(2);
    for (const request of sim.requests) {
      expect(request.headers).not.toHaveProperty('authorization');
      expect(request.headers).not.toHaveProperty('x-api-key');
      expect(JSON.stringify(request)).not.toContain(sim.apiKey);
    }
    expect(sim.requests[0]?.headers['x-trace']).toBe('abc');
  });
});
