import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

describe('GET /search', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 6, size: 300, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('requires a non-empty query', async () => {
    expect((await call(sim, '/search')).status).toBe(400);
    expect((await call(sim, '/search?query=%20')).json.error).toBe('invalid_input');
  });

  it('ranks name matches, at most `limit`, and filters by type', async () => {
    const answer = await call(sim, '/search?query=cooking%20tips&type=project&limit=100');
    expect(answer.status).toBe(200);
    const results = answer.json.results;
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(100);
    for (const result of results) {
      expect(result.type).toBe('project');
      expect(result.name.toLowerCase()).toContain('cooking tips');
      expect(result.url).toBe(`https://web.descript.com/${result.project_id}`);
    }
    const limited = await call(sim, '/search?query=cooking&limit=3');
    expect(limited.json.results).toHaveLength(3);
  });

  it('matches transcript content and media names across types', async () => {
    const content = await call(sim, '/search?query=pasta%20water&match=content&type=project');
    expect(content.json.results.length).toBeGreaterThan(0);
    expect(content.json.results.every((r: any) => r.type === 'project')).toBe(true);

    const media = await call(sim, '/search?query=logo.png&type=image&type=video');
    expect(media.json.results.length).toBeGreaterThan(0);
    const locations = new Set(media.json.results.map((r: any) => r.location));
    expect(locations.has('project') || locations.has('brand_studio')).toBe(true);
    expect(media.json.results.every((r: any) => r.type === 'image' && r.asset_id)).toBe(true);

    const folders = await call(sim, '/search?query=acme&type=project_folder');
    expect(folders.json.results[0]).toMatchObject({ type: 'project_folder', name: 'Acme' });
  });

  it('sorts by modification time on request and filters by owner and time', async () => {
    const newest = (await call(sim, '/search?query=demo&sort=newest&limit=50')).json.results;
    const times = newest.map((r: any) => r.updated_at);
    expect([...times].sort().reverse()).toEqual(times);
    const owner = newest[0].owner.id;
    const owned = (await call(sim, `/search?query=demo&owner=${owner}&limit=100`)).json.results;
    expect(owned.length).toBeGreaterThan(0);
    expect(owned.every((r: any) => r.owner.id === owner)).toBe(true);
    const recent = (await call(sim, `/search?query=demo&updated_after=${times[2]}&limit=100`)).json.results;
    expect(recent.every((r: any) => r.updated_at >= times[2])).toBe(true);
  });

  it('allows visual search only on Enterprise drives, and only on its own', async () => {
    const refused = await call(sim, '/search?query=kitchen&match=visual');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'forbidden', message: 'Visual search is not available for this drive' });
    expect((await call(sim, '/search?query=kitchen&match=visual&match=name')).status).toBe(400);
    sim.setEnterprise(true);
    const visual = await call(sim, '/search?query=kitchen&match=visual');
    expect(visual.status).toBe(200);
    expect(visual.json.results.length).toBeGreaterThan(0);
    expect(visual.json.results.every((r: any) => r.type === 'video' || r.type === 'image')).toBe(true);
    sim.setEnterprise(false);
  });
});
