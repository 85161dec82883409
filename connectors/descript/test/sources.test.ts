import { ConflictError, type Page, readAll, runAction, writeAction } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { failure, projectId, projectWithPublishes, T0, useHarness } from './support.js';

/** Every source against the simulator (127.0.0.1, port 0, the OpenAPI document checking each request where present). */

const harness = useHarness();
const DAY = 86_400_000;
const ids = (records: unknown[], field = 'id') => records.map((record) => (record as Record<string, string>)[field]);
const media = (name: string) => `https://media.example.com/uploads/${name}?duration=45`;

describe('status.get and agent_models.list', () => {
  it('gives the drive the token is tied to and the API version', async () => {
    const h = await harness();
    const { records } = await readAll(h.connector, 'status.get', h.options({}));
    expect(records).toEqual([{ drive_id: h.sim.driveId, drive_name: 'Simulated Drive', api_version: '1.2' }]);
    expect(h.logs.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it('lists models and aliases with their cost tiers', async () => {
    const h = await harness();
    const { records } = await readAll(h.connector, 'agent_models.list', h.options({}));
    expect(records).toContainEqual({ id: 'auto', kind: 'model', cost: 'medium' });
    expect(records).toContainEqual(
      expect.objectContaining({ id: 'claude-opus', kind: 'alias', resolvesTo: 'claude-opus-5.5', cost: 'high' }),
    );
  });
});

describe('projects.list', () => {
  it("pages to the end, oldest update first, with the filters under the provider's names", async () => {
    const h = await harness();
    const run = await readAll(h.connector, 'projects.list', h.options({ limit: 7 }));
    expect(run.pages).toBe(5);
    expect(run.records).toHaveLength(30);
    expect(new Set(ids(run.records)).size).toBe(30);
    const updated = run.records.map((record) => Date.parse((record as { updated_at: string }).updated_at));
    expect(updated).toEqual([...updated].sort((a, b) => a - b));
    const calls = h.requestsTo('/projects');
    expect(calls).toHaveLength(5);
    expect(calls[0]?.query).toEqual({ sort: 'updated_at', direction: 'asc', limit: '7' });
    expect(calls.slice(1).every((call) => typeof call.query['cursor'] === 'string')).toBe(true);

    h.sim.clearRequests();
    await readAll(
      h.connector,
      'projects.list',
      h.options({
        name: 'podcast',
        folder_path: 'Clients/Acme',
        created_by: 'me',
        created_after: '2024-01-01T00:00:00Z',
      }),
    );
    expect(h.requestsTo('/projects')[0]?.query).toEqual({
      name: 'podcast',
      folder_path: 'Clients/Acme',
      created_by: 'me',
      created_after: '2024-01-01T00:00:00Z',
      sort: 'updated_at',
      direction: 'asc',
      limit: '100',
    });
  });

  it('reads on from its checkpoint: only the projects created or changed since, none twice', async () => {
    const h = await harness();
    const first = await readAll(h.connector, 'projects.list', h.options({ limit: 10 }));
    expect(first.checkpoint).toEqual({
      updated_after: (first.records.at(-1) as { updated_at: string }).updated_at,
      seen_ids: [ids(first.records).at(-1)],
    });

    const nothing = await readAll(
      h.connector,
      'projects.list',
      h.options({ limit: 10 }, { checkpoint: first.checkpoint }),
    );
    expect(nothing.records).toEqual([]);
    expect(nothing.checkpoint).toEqual(first.checkpoint);

    const created = await writeAction(
      h.connector,
      'media_imports.create',
      h.options({ project_name: 'Fresh', add_media: { 'a.mp4': { url: media('a.mp4') } } }),
    );
    const second = await readAll(
      h.connector,
      'projects.list',
      h.options({ limit: 10 }, { checkpoint: first.checkpoint }),
    );
    expect(ids(second.records)).toEqual([(created as { project_id: string }).project_id]);
    expect(h.requestsTo('/projects').at(-1)?.query['updated_after']).toBe(
      new Date(Date.parse((first.checkpoint as { updated_after: string }).updated_after) - 1).toISOString(),
    );
  });

  it('neither repeats nor skips projects that share a timestamp across a page boundary', async () => {
    const h = await harness();
    const first = await readAll(h.connector, 'projects.list', h.options({}));
    // Three projects created at the same instant (the simulator's clock stands still).
    const made: string[] = [];
    for (const name of ['tie-a', 'tie-b', 'tie-c']) {
      const receipt = (await writeAction(
        h.connector,
        'media_imports.create',
        h.options({ project_name: name, add_media: { 'a.mp4': { url: media(`${name}.mp4`) } } }),
      )) as { project_id: string };
      made.push(receipt.project_id);
    }
    // A run that stops after its first page, as a crash would: the page holds the project the first run ended on
    // (dropped, it was read) and two of the three.
    let afterOnePage: Page | undefined;
    for await (const page of runAction(
      h.connector,
      'projects.list',
      h.options({ limit: 3 }, { checkpoint: first.checkpoint }),
    )) {
      afterOnePage = page;
      break;
    }
    expect(afterOnePage?.records).toHaveLength(2);
    const checkpoint = afterOnePage?.checkpoint as { updated_after: string; seen_ids: string[] };
    expect(checkpoint.updated_after).toBe(new Date(T0).toISOString().replace('.000Z', 'Z'));
    expect(checkpoint.seen_ids).toHaveLength(2);
    // Resuming there gives exactly the third, then nothing.
    const rest = await readAll(h.connector, 'projects.list', h.options({ limit: 2 }, { checkpoint }));
    const all = [...ids(afterOnePage!.records), ...ids(rest.records)];
    expect(all.sort()).toEqual([...made].sort());
    expect((rest.checkpoint as { seen_ids: string[] }).seen_ids.sort()).toEqual([...made].sort());
    const again = await readAll(h.connector, 'projects.list', h.options({ limit: 2 }, { checkpoint: rest.checkpoint }));
    expect(again.records).toEqual([]);
  });
});

describe('projects.get, compositions.list, media_files.list and publishes.list read GET /projects/{id}', () => {
  it('gives the project with the counts of its media files, compositions and share pages', async () => {
    const h = await harness();
    const id = projectWithPublishes(h.sim);
    const { records } = await readAll(h.connector, 'projects.get', h.options({ project_id: id }));
    const project = records[0] as Record<string, unknown>;
    expect(project['id']).toBe(id);
    expect(project['media_files_count']).toBe(Object.keys(project['media_files'] as object).length);
    expect(project['compositions_count']).toBe((project['compositions'] as unknown[]).length);
    expect(project['publishes_count']).toBe((project['publishes'] as unknown[]).length);
    expect(project['publishes_count']).toBeGreaterThan(0);

    const compositions = await readAll(h.connector, 'compositions.list', h.options({ project_id: id }));
    expect(compositions.records).toEqual(
      (project['compositions'] as object[]).map((composition) => ({ project_id: id, ...composition })),
    );
    const files = await readAll(h.connector, 'media_files.list', h.options({ project_id: id }));
    const paths = ids(files.records, 'display_path');
    expect(paths).toEqual(Object.keys(project['media_files'] as object).sort());
    expect(files.records[0]).toMatchObject({ project_id: id, type: expect.any(String) });
    const publishes = await readAll(h.connector, 'publishes.list', h.options({ project_id: id }));
    expect(publishes.records).toEqual(
      (project['publishes'] as object[]).map((publish) => ({ project_id: id, ...publish })),
    );
    expect(h.requestsTo(`/projects/${id}`)).toHaveLength(4);
  });
});

describe('drive_items.search', () => {
  it('sends repeatable parameters repeated and dates as timestamps, and returns one ranked page', async () => {
    const h = await harness();
    const { records, pages } = await readAll(
      h.connector,
      'drive_items.search',
      h.options({
        query: 'quarterly',
        type: ['project', 'video'],
        match: ['name', 'content'],
        updated_after: '2026-01-01',
        updated_before: '2026-03-01',
        sort: 'newest',
      }),
    );
    expect(pages).toBe(1);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((record) => ['project', 'video'].includes((record as { type: string }).type))).toBe(true);
    expect(h.requestsTo('/search')[0]?.query).toEqual({
      query: 'quarterly',
      type: ['project', 'video'],
      match: ['name', 'content'],
      updated_after: '2026-01-01T00:00:00Z',
      updated_before: '2026-03-01T23:59:59.999Z',
      sort: 'newest',
      limit: '30',
    });
  });
});

describe('jobs.list', () => {
  it('reads the last 7 days by default, newest first, to the end', async () => {
    const h = await harness();
    const run = await readAll(h.connector, 'jobs.list', h.options({ limit: 2 }));
    const calls = h.requestsTo('/jobs');
    expect(calls[0]?.query).toEqual({ created_after: new Date(T0 - 7 * DAY).toISOString(), limit: '2' });
    expect(run.pages).toBe(calls.length);
    expect(run.pages).toBeGreaterThan(2);
    const created = run.records.map((record) => Date.parse((record as { created_at: string }).created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(created.every((ms) => ms >= T0 - 7 * DAY)).toBe(true);
    expect(run.checkpoint).toEqual({
      created_after: (run.records[0] as { created_at: string }).created_at,
      seen_ids: [ids(run.records, 'job_id')[0]],
    });
  });

  it('reads on from its checkpoint: only the jobs started since, none twice', async () => {
    const h = await harness();
    const first = await readAll(h.connector, 'jobs.list', h.options({}));
    const receipt = (await writeAction(
      h.connector,
      'agent_edits.create',
      h.options({ project_id: projectId(h.sim, 5), prompt: 'add captions' }),
    )) as { job_id: string };
    const second = await readAll(h.connector, 'jobs.list', h.options({}, { checkpoint: first.checkpoint }));
    expect(ids(second.records, 'job_id')).toEqual([receipt.job_id]);
    const third = await readAll(h.connector, 'jobs.list', h.options({}, { checkpoint: second.checkpoint }));
    expect(third.records).toEqual([]);
    expect(third.checkpoint).toEqual(second.checkpoint);
  });

  it('moves a checkpoint older than 30 days to 30 days ago with a warning in the log, never an error', async () => {
    const h = await harness();
    const run = await readAll(
      h.connector,
      'jobs.list',
      h.options({}, { checkpoint: { created_after: '2025-12-01T00:00:00Z', seen_ids: [] } }),
    );
    const sent = h.requestsTo('/jobs')[0]?.query['created_after'] as string;
    expect(Date.parse(sent)).toBeGreaterThanOrEqual(T0 - 30 * DAY);
    expect(Date.parse(sent)).toBeLessThanOrEqual(T0 - 30 * DAY + 60_000);
    expect(h.requestsTo('/jobs').every((call) => call.status === 200)).toBe(true);
    expect(run.records.length).toBeGreaterThan(7);
    const warnings = h.logs.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(
      /2025-12-01T00:00:00Z is older than the provider's 30-day job history; reading from/,
    );
    expect(warnings[0]).toMatchObject({ connector: 'descript', action: 'jobs.list', from: '2025-12-01T00:00:00Z' });
  });

  it('clamps a created_after input the same way, and filters by project and type', async () => {
    const h = await harness();
    const project = projectId(h.sim, 5);
    await writeAction(h.connector, 'agent_edits.create', h.options({ project_id: project, prompt: 'add captions' }));
    const run = await readAll(
      h.connector,
      'jobs.list',
      h.options({ created_after: '2025-01-01T00:00:00Z', project_id: project, type: 'agent' }),
    );
    expect(run.records.length).toBeGreaterThan(0);
    expect(
      run.records.every((record) => (record as { project_id: string; job_type: string }).project_id === project),
    ).toBe(true);
    expect(h.requestsTo('/jobs')[0]?.query).toMatchObject({ project_id: project, type: 'agent' });
    expect(h.logs.filter((entry) => entry.level === 'warn')).toHaveLength(1);
  });
});

describe('jobs.get', () => {
  it('reports progress while the job runs, and the results once it stopped', async () => {
    const h = await harness();
    const receipt = (await writeAction(
      h.connector,
      'media_imports.create',
      h.options({
        project_name: 'Progress',
        add_media: { 'a.mp4': { url: media('a.mp4') }, 'broken.mp4': { url: 'https://media.example.com/broken.mp4' } },
      }),
    )) as { job_id: string };
    h.clock.advance(8_000);
    const running = await readAll(h.connector, 'jobs.get', h.options({ job_id: receipt.job_id }));
    expect(running.records[0]).toMatchObject({
      job_id: receipt.job_id,
      job_state: 'running',
      progress: { label: expect.any(String) },
    });
    expect(h.progress).toHaveLength(1);
    expect(h.progress[0]).toEqual({
      label: (running.records[0] as { progress: { label: string } }).progress.label,
      percent: expect.any(Number),
    });

    h.clock.advance(30_000);
    const stopped = await readAll(h.connector, 'jobs.get', h.options({ job_id: receipt.job_id }));
    expect(stopped.records[0]).toMatchObject({
      job_state: 'stopped',
      result: {
        status: 'partial',
        media_status: { 'a.mp4': { status: 'success' }, 'broken.mp4': { status: 'failed' } },
        media_seconds_used: 45,
      },
    });
    expect(h.progress).toHaveLength(1);
  });
});

describe('published_projects.get', () => {
  it('reads a share page by slug or by share URL', async () => {
    const h = await harness();
    const [slug] = h.sim.state.publishSlugs(1);
    const bySlug = await readAll(h.connector, 'published_projects.get', h.options({ slug }));
    const byUrl = await readAll(
      h.connector,
      'published_projects.get',
      h.options({ slug: `https://share.descript.com/view/${slug}` }),
    );
    expect(bySlug.records).toEqual(byUrl.records);
    expect(bySlug.records[0]).toMatchObject({
      slug,
      publish_type: expect.any(String),
      privacy: expect.any(String),
      subtitles: expect.stringMatching(/^WEBVTT/),
    });
  });

  it('409 gives a conflict error with the state: processing is worth retrying later, failed is not', async () => {
    const h = await harness();
    const [processing, failed] = h.sim.state.publishSlugs(2);
    h.sim.setPublishState(processing!, 'processing');
    h.sim.setPublishState(failed!, 'failed');
    const later = await failure(readAll(h.connector, 'published_projects.get', h.options({ slug: processing })));
    expect(later).toBeInstanceOf(ConflictError);
    expect(later).toMatchObject({ code: 'conflict', state: 'processing', retryable: true, status: 409 });
    const never = await failure(readAll(h.connector, 'published_projects.get', h.options({ slug: failed })));
    expect(never).toMatchObject({ code: 'conflict', state: 'failed', retryable: false, status: 409 });
    // A conflict is not retried automatically: one request each.
    expect(h.requestsTo(/^\/published_projects\//)).toHaveLength(2);
  });
});

describe('transcripts.get', () => {
  for (const [format, pattern] of [
    ['txt', /\w/],
    ['markdown', /^#/m],
    ['html', /<p|<h1|<html/i],
    ['rtf', /^\{\\rtf/],
    ['srt', /^1\r?\n\d{2}:\d{2}:\d{2},\d{3} --> /],
  ] as const) {
    it(`exports ${format} with the composition id and the file name`, async () => {
      const h = await harness();
      const id = projectId(h.sim, 12);
      const { records } = await readAll(
        h.connector,
        'transcripts.get',
        h.options({ project_id: id, format, include_speaker_labels: 'off' }),
      );
      const [first] = (h.sim.state.project(12)?.['compositions'] as Array<{ id: string }>) ?? [];
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        project_id: id,
        composition_id: first?.id,
        format,
        file_name: expect.stringMatching(new RegExp(`\\.${format === 'markdown' ? 'md' : format}$`)),
      });
      expect((records[0] as { text: string }).text).toMatch(pattern);
      expect(h.requestsTo('/export/transcript')[0]?.body).toEqual({
        project_id: id,
        format,
        include_speaker_labels: 'off',
      });
    });
  }
});
