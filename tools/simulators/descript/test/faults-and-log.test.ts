import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

describe('scripted faults and the request log', () => {
  let sim: DescriptSimulator;
  beforeEach(async () => {
    sim = await startDescriptSimulator({ size: 5, clock: () => T0 });
  });
  afterEach(() => sim.close());

  it('replaces the next answer, then behaves again', async () => {
    sim.failNext({ status: 500 });
    const failed = await call(sim, '/status');
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ error: 'internal_error', message: 'Simulated 500 answer' });
    expect(failed.headers.get('x-request-id')).toBeTruthy();
    expect((await call(sim, '/status')).status).toBe(200);
  });

  it('matches faults by method and path, several times, with scripted headers and body', async () => {
    sim.failNext({ status: 429, path: '/projects', method: 'GET', times: 2, headers: { 'Retry-After': '2' } });
    sim.failNext({
      status: 409,
      path: /^\/published_projects\//,
      body: { error: 'conflict', message: 'busy', state: 'processing' },
    });
    expect((await call(sim, '/status')).status).toBe(200);
    const limited = await call(sim, '/projects');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json.error).toBe('rate_limit_exceeded');
    expect((await call(sim, '/projects')).status).toBe(429);
    expect((await call(sim, '/projects')).status).toBe(200);
    expect((await call(sim, '/published_projects/anything')).json).toEqual({
      error: 'conflict',
      message: 'busy',
      state: 'processing',
    });
    sim.failNext({ status: 503 });
    sim.clearFaults();
    expect((await call(sim, '/status')).status).toBe(200);
  });

  it('can hold an answer back', async () => {
    sim.failNext({ status: 200, body: { drive_id: null, drive_name: null, api_version: '1.2' }, delayMs: 50 });
    const started = Date.now();
    const answer = await call(sim, '/status');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(answer.json.drive_id).toBeNull();
  });

  it('records method, path, query, body and status of each request', async () => {
    await call(sim, '/search?query=demo&type=project&type=video');
    const project = sim.state.project(0) as any;
    await call(sim, '/export/transcript', { body: { project_id: project.id, format: 'txt' } });
    await call(sim, '/status', { token: null });
    expect(sim.requests.map(({ id: _, ...rest }) => rest)).toEqual([
      {
        method: 'GET',
        path: '/search',
        query: { query: 'demo', type: ['project', 'video'] },
        authorized: true,
        status: 200,
      },
      {
        method: 'POST',
        path: '/export/transcript',
        query: {},
        body: { project_id: project.id, format: 'txt' },
        authorized: true,
        status: 200,
      },
      { method: 'GET', path: '/status', query: {}, authorized: false, status: 401 },
    ]);
    sim.clearRequests();
    expect(sim.requests).toEqual([]);
  });

  it('answers invalid JSON bodies with invalid_input', async () => {
    const response = await fetch(`${sim.url}/jobs/agent`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sim.token}`, 'Content-Type': 'application/json' },
      body: '{"prompt":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_input', message: 'Request body is not valid JSON' });
  });
});
