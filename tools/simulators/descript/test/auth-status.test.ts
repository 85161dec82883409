import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

describe('authentication and status', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 7, size: 5, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('listens on 127.0.0.1 under /v1 with a fake, seed-derived token', () => {
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}/v1`);
    expect(sim.token).toMatch(/^dsim_[0-9a-f]{32}$/);
  });

  it('answers 401 without a token and with a wrong one', async () => {
    for (const token of [null, 'not-the-token']) {
      const answer = await call(sim, '/status', { token });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: 'unauthorized', message: 'Missing or invalid authentication token' });
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('names the drive the token belongs to', async () => {
    const answer = await call(sim, '/status');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ drive_id: sim.driveId, drive_name: 'Simulated Drive', api_version: '1.2' });
    const other = await call(sim, '/status', { token: sim.otherDrives[0]?.token ?? '' });
    expect(other.json.drive_id).toBe(sim.otherDrives[0]?.driveId);
    expect(other.json.drive_id).not.toBe(sim.driveId);
  });

  it('gives every answer its own X-Request-Id', async () => {
    const ids = await Promise.all([call(sim, '/status'), call(sim, '/status', { token: null }), call(sim, '/nowhere')]);
    const values = ids.map((a) => a.headers.get('x-request-id'));
    expect(new Set(values).size).toBe(3);
    expect(ids[2]?.status).toBe(404);
    expect(ids[2]?.json.error).toBe('not_found');
  });

  it('lists agent models in camelCase with cost tiers', async () => {
    const answer = await call(sim, '/agent/models');
    expect(answer.status).toBe(200);
    expect(answer.json.availableModels).toContainEqual({ id: 'auto', cost: 'medium' });
    expect(answer.json.aliases[0]).toMatchObject({ id: 'claude-opus', resolvesTo: 'claude-opus-5.5', cost: 'high' });
  });

  it('derives the same drive from the same seed', async () => {
    const twin = await startDescriptSimulator({ seed: 7, size: 5, clock: () => T0 });
    try {
      expect(twin.token).toBe(sim.token);
      expect((await call(twin, '/projects')).json).toEqual((await call(sim, '/projects')).json);
    } finally {
      await twin.close();
    }
  });
});
