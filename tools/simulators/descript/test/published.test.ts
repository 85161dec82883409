import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

describe('GET /published_projects/{slug}', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 4, size: 40, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('answers the metadata of a published share page', async () => {
    const [slug] = sim.state.publishSlugs(1);
    const answer = await call(sim, `/published_projects/${slug}`);
    expect(answer.status).toBe(200);
    expect(['audio', 'video', 'audiogram']).toContain(answer.json.publish_type);
    expect(['public', 'unlisted', 'private', 'drive', 'password']).toContain(answer.json.privacy);
    expect(answer.json.metadata.duration_formatted).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(answer.json.metadata.published_by.first_name).toBeTruthy();
    expect(answer.json.subtitles).toMatch(/^WEBVTT\n\n00:00:00\.000 --> /);
    const project = (await call(sim, `/projects/${answer.json.project_id}`)).json;
    expect(project.publishes.some((p: any) => p.share_url === `https://share.descript.com/view/${slug}`)).toBe(true);
  });

  it('answers 409 while processing and after a failure, and 200 again once published', async () => {
    const [slug = ''] = sim.state.publishSlugs(1);
    sim.setPublishState(slug, 'processing');
    const processing = await call(sim, `/published_projects/${slug}`);
    expect(processing.status).toBe(409);
    expect(processing.json).toMatchObject({ error: 'conflict', state: 'processing' });
    expect(typeof processing.json.message).toBe('string');
    sim.setPublishState(slug, 'failed');
    expect((await call(sim, `/published_projects/${slug}`)).json).toMatchObject({ error: 'conflict', state: 'failed' });
    sim.setPublishState(slug, 'published');
    expect((await call(sim, `/published_projects/${slug}`)).status).toBe(200);
  });

  it('seeds share pages that are processing or failed, listed on their projects', async () => {
    const large = await startDescriptSimulator({ seed: 4, size: 400, clock: () => T0 });
    try {
      for (const state of ['processing', 'failed'] as const) {
        const [slug] = large.state.publishSlugs(1, { state });
        expect(slug).toBeDefined();
        const answer = await call(large, `/published_projects/${slug}`);
        expect(answer.status).toBe(409);
        expect(answer.json.state).toBe(state);
      }
    } finally {
      await large.close();
    }
  });

  it('answers 404 for an unknown slug', async () => {
    const answer = await call(sim, '/published_projects/doesnotexist');
    expect(answer.json).toEqual({ error: 'not_found', message: 'Published project not found' });
  });
});
