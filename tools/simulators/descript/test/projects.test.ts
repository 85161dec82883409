import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

async function readAll(sim: DescriptSimulator, query: string): Promise<any[]> {
  const projects: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await call(sim, `/projects?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(answer.status).toBe(200);
    projects.push(...answer.json.data);
    cursor = answer.json.pagination.next_cursor;
    if (cursor === undefined) {
      expect(answer.json.pagination).toEqual({});
      return projects;
    }
  }
  throw new Error('pagination did not end');
}

describe('GET /projects', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 3, size: 57, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('pages newest-created first to the end without duplicates', async () => {
    const projects = await readAll(sim, 'limit=10');
    expect(projects).toHaveLength(57);
    expect(new Set(projects.map((p) => p.id)).size).toBe(57);
    const created = projects.map((p) => p.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    for (const project of projects) {
      expect(Date.parse(project.updated_at)).toBeGreaterThanOrEqual(Date.parse(project.created_at));
      expect(Date.parse(project.updated_at)).toBeLessThanOrEqual(T0);
    }
  });

  it('defaults to 20 per page', async () => {
    const answer = await call(sim, '/projects');
    expect(answer.json.data).toHaveLength(20);
    expect(typeof answer.json.pagination.next_cursor).toBe('string');
  });

  it('reads incrementally by updated_at ascending from updated_after', async () => {
    const all = await readAll(sim, 'sort=updated_at&direction=asc&limit=7');
    expect(all).toHaveLength(57);
    const updated = all.map((p) => p.updated_at);
    expect([...updated].sort()).toEqual(updated);
    // Some projects changed within the last hour before the drive was seeded.
    expect(all.filter((p) => T0 - Date.parse(p.updated_at) < 24 * 3600_000).length).toBeGreaterThan(0);
    const since = all[40].updated_at;
    const recent = await readAll(sim, `sort=updated_at&direction=asc&limit=5&updated_after=${since}`);
    expect(recent.map((p) => p.id)).toEqual(all.slice(40).map((p) => p.id));
  });

  it('sorts by name in both directions', async () => {
    const asc = await readAll(sim, 'sort=name&direction=asc&limit=9');
    const names = asc.map((p) => p.name.toLowerCase());
    expect([...names].sort()).toEqual(names);
    const desc = await readAll(sim, 'sort=name&direction=desc&limit=9');
    expect(desc.map((p) => p.id)).toEqual(asc.map((p) => p.id).reverse());
  });

  it('filters by name, folder, creator and time', async () => {
    const all = await readAll(sim, 'limit=100');
    const byName = await readAll(sim, 'name=COOKING&limit=100');
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.map((p) => p.id)).toEqual(
      all.filter((p) => p.name.toLowerCase().includes('cooking')).map((p) => p.id),
    );

    const folder = all.find((p) => p.folder_path)?.folder_path as string;
    const inFolder = await readAll(sim, `folder_path=${encodeURIComponent(folder)}&limit=100`);
    expect(inFolder.length).toBeGreaterThan(0);
    expect(inFolder.every((p) => p.folder_path === folder)).toBe(true);
    expect(inFolder.length).toBe(all.filter((p) => p.folder_path === folder).length);

    const mine = await readAll(sim, 'created_by=me&limit=100');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(57);

    const cut = all[20].created_at;
    const older = await readAll(sim, `created_before=${cut}&limit=100`);
    expect(older.map((p) => p.id)).toEqual(all.slice(20).map((p) => p.id));
  });

  it('rejects a limit out of range and a forged cursor', async () => {
    expect((await call(sim, '/projects?limit=0')).json.error).toBe('invalid_input');
    expect((await call(sim, '/projects?limit=101')).status).toBe(400);
    expect((await call(sim, '/projects?cursor=garbage')).status).toBe(400);
    const first = await call(sim, '/projects?limit=2');
    const mismatch = await call(sim, `/projects?sort=name&cursor=${first.json.pagination.next_cursor}`);
    expect(mismatch.status).toBe(400);
  });
});

describe('GET /projects/{project_id}', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 3, size: 57, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('answers media files, compositions and publishes', async () => {
    const { json } = await call(sim, '/projects?limit=1');
    const answer = await call(sim, `/projects/${json.data[0].id}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: json.data[0].id, name: json.data[0].name, drive_id: sim.driveId });
    expect(Object.keys(answer.json.media_files).length).toBeGreaterThan(0);
    for (const file of Object.values<any>(answer.json.media_files))
      expect(['audio', 'video', 'image', 'sequence', 'other']).toContain(file.type);
    expect(answer.json.compositions.length).toBeGreaterThan(0);
    expect(Array.isArray(answer.json.publishes)).toBe(true);
    expect(answer.json).toEqual(sim.state.project(56));
  });

  it('has publishes somewhere in the drive, with share URLs', async () => {
    const [slug] = sim.state.publishSlugs(1);
    expect(slug).toBeDefined();
    const projects = Array.from({ length: 57 }, (_, o) => sim.state.project(o) as any);
    const owner = projects.find((p) => p.publishes.some((pub: any) => pub.share_url.endsWith(`/${slug}`)));
    expect(owner).toBeDefined();
  });

  it("answers 403 for another drive's project and 404 for an unknown one", async () => {
    const other = sim.otherDrives[0];
    const theirs = await call(sim, '/projects?limit=1', { token: other?.token ?? '' });
    const forbidden = await call(sim, `/projects/${theirs.json.data[0].id}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error).toBe('forbidden');
    const missing = await call(sim, '/projects/9f36ee32-5a2c-47e7-b1a3-94991d3e3ddb');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'not_found', message: 'Project not found' });
  });
});

describe('a drive of 1,000,000 projects', () => {
  let sim: DescriptSimulator;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 11, size: 1_000_000, clock: () => T0 });
  });
  afterAll(() => sim.close());

  it('answers pages from anywhere without building the drive', async () => {
    const first = await call(sim, '/projects?limit=100');
    expect(first.json.data).toHaveLength(100);
    const second = await call(sim, `/projects?limit=100&cursor=${first.json.pagination.next_cursor}`);
    expect(second.json.data).toHaveLength(100);
    const ids = new Set([...first.json.data, ...second.json.data].map((p: any) => p.id));
    expect(ids.size).toBe(200);
    expect(second.json.data[0].created_at <= first.json.data[99].created_at).toBe(true);

    const oldest = await call(sim, '/projects?sort=updated_at&direction=asc&limit=100');
    expect(oldest.json.data).toHaveLength(100);
    const middle = await call(
      sim,
      '/projects?sort=updated_at&direction=asc&limit=100&updated_after=2026-01-01T00:00:00Z',
    );
    expect(middle.json.data[0].updated_at >= '2026-01-01T00:00:00Z').toBe(true);
    const next = await call(
      sim,
      `/projects?sort=updated_at&direction=asc&limit=100&updated_after=2026-01-01T00:00:00Z&cursor=${middle.json.pagination.next_cursor}`,
    );
    expect(next.json.data[0].updated_at >= middle.json.data[99].updated_at).toBe(true);
    expect(sim.state.projectCount()).toBe(1_000_000);
  });

  it('finds any project by id', async () => {
    const deep = sim.state.project(123_456) as any;
    const answer = await call(sim, `/projects/${deep.id}`);
    expect(answer.status).toBe(200);
    expect(answer.json.name).toBe(deep.name);
  });
});
