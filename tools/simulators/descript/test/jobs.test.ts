import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call, manualClock } from './helpers.js';

const DAY = 24 * 3600_000;

describe('import jobs', () => {
  let sim: DescriptSimulator;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    clock = manualClock();
    sim = await startDescriptSimulator({ seed: 5, size: 20, clock: clock.now, jobDurationMs: 10_000 });
  });
  afterEach(() => sim.close());

  it('creates a project, then moves queued → running → stopped as the clock advances', async () => {
    const started = await call(sim, '/jobs/import/project_media', {
      body: {
        project_name: 'Launch video',
        folder_name: 'Clients/Acme',
        add_media: {
          'demo.mp4': { url: 'https://media.example/demo.mp4?duration=120' },
          'Misc/logo.png': { url: 'https://media.example/logo.png' },
        },
        add_compositions: [{ name: 'Rough Cut', clips: [{ media: 'demo.mp4' }] }],
      },
    });
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({ drive_id: sim.driveId, drive_name: 'Simulated Drive' });
    const { job_id, project_id, project_url } = started.json;
    expect(project_url).toBe(`https://web.descript.com/${project_id}`);

    const created = await call(sim, `/projects/${project_id}`);
    expect(created.json).toMatchObject({
      name: 'Launch video',
      folder_path: 'Clients/Acme',
      media_files: {},
      compositions: [],
    });
    expect((await call(sim, `/jobs/${job_id}`)).json).toMatchObject({
      job_state: 'queued',
      job_type: 'import/project_media',
      project_id,
    });

    clock.advance(5_000);
    const running = (await call(sim, `/jobs/${job_id}`)).json;
    expect(running.job_state).toBe('running');
    expect(running.progress.percent).toBeGreaterThan(0);
    expect(running.progress.percent).toBeLessThan(100);
    expect(typeof running.progress.label).toBe('string');
    expect(running.result).toBeUndefined();

    clock.advance(5_000);
    const stopped = (await call(sim, `/jobs/${job_id}`)).json;
    expect(stopped.job_state).toBe('stopped');
    expect(stopped.stopped_at).toBe(new Date(T0 + 10_000).toISOString().replace('.000Z', 'Z'));
    expect(stopped.result).toMatchObject({
      status: 'success',
      media_status: {
        'demo.mp4': { status: 'success', duration_seconds: 120 },
        'Misc/logo.png': { status: 'success' },
      },
      media_seconds_used: 120,
    });
    expect(stopped.result.created_compositions[0].name).toBe('Rough Cut');
    expect(stopped.project_url).toMatch(new RegExp(`^${project_url}/[0-9a-f]{5}$`));

    const imported = (await call(sim, `/projects/${project_id}`)).json;
    expect(imported.media_files).toEqual({
      'demo.mp4': { type: 'video', duration: 120 },
      'Misc/logo.png': { type: 'image' },
    });
    expect(imported.compositions[0]).toMatchObject({ name: 'Rough Cut', duration: 120, media_type: 'video' });
    expect(imported.updated_at).toBe(stopped.stopped_at);
    const newest = await call(sim, '/projects?sort=updated_at&direction=desc&limit=1');
    expect(newest.json.data[0].id).toBe(project_id);
  });

  it('reports a partial import when a URL is broken', async () => {
    const { json } = await call(sim, '/projects?limit=1');
    const started = await call(sim, '/jobs/import/project_media', {
      body: {
        project_id: json.data[0].id,
        add_media: {
          'new-take.mp4': { url: 'https://media.example/new-take.mp4' },
          'broken.mp4': { url: 'https://media.example/broken.mp4' },
          Multicam_Track: { tracks: [{ media: 'new-take.mp4' }, { media: 'broken.mp4', offset: 5 }] },
        },
      },
    });
    expect(started.status).toBe(201);
    expect(started.json.project_id).toBe(json.data[0].id);
    clock.advance(10_000);
    const result = (await call(sim, `/jobs/${started.json.job_id}`)).json.result;
    expect(result.status).toBe('partial');
    expect(result.media_status['new-take.mp4'].status).toBe('success');
    expect(result.media_status['broken.mp4']).toEqual({
      status: 'failed',
      error_message: 'URL is not accessible or does not support Range requests',
    });
    expect(result.media_status['Multicam_Track'].status).toBe('failed');
    const project = (await call(sim, `/projects/${json.data[0].id}`)).json;
    expect(project.media_files['new-take.mp4']).toBeDefined();
    expect(project.media_files['broken.mp4']).toBeUndefined();
  });

  it('fails the whole job when nothing imports', async () => {
    const started = await call(sim, '/jobs/import/project_media', {
      body: { project_name: 'Doomed', add_media: { 'a.mp4': { url: 'https://media.example/fail.mp4' } } },
    });
    clock.advance(10_000);
    const job = (await call(sim, `/jobs/${started.json.job_id}`)).json;
    expect(job.result).toEqual({
      status: 'error',
      error_message: 'Failed to import media files',
      error_code: 'import_failed',
    });
  });

  it('refuses file name conflicts and unknown track media', async () => {
    const project = sim.state.project(3) as any;
    const existing = Object.keys(project.media_files)[0] as string;
    const conflict = await call(sim, '/jobs/import/project_media', {
      body: { project_id: project.id, add_media: { [existing]: { url: 'https://media.example/x.mp4' } } },
    });
    expect(conflict.status).toBe(400);
    expect(conflict.json.message).toBe('Media filename conflicts with existing files in the project');
    const dangling = await call(sim, '/jobs/import/project_media', {
      body: { project_name: 'X', add_media: { Seq: { tracks: [{ media: 'nowhere.mp4' }] } } },
    });
    expect(dangling.status).toBe(400);
    expect(dangling.json.message).toContain('nowhere.mp4');
  });

  it('answers 402 with the provider message once media minutes run out', async () => {
    sim.setQuota({ mediaMinutes: 50 });
    const answer = await call(sim, '/jobs/import/project_media', {
      body: {
        project_name: 'Long',
        add_media: { 'long.mp4': { url: 'https://media.example/long.mp4?duration=18000' } },
      },
    });
    expect(answer.status).toBe(402);
    expect(answer.json).toEqual({
      error: 'payment_required',
      message: 'Insufficient media minutes to start the job (300 minutes required, 50 available)',
    });
    expect(sim.state.projectCount()).toBe(20);

    const fits = await call(sim, '/jobs/import/project_media', {
      body: { project_name: 'Short', add_media: { 's.mp4': { url: 'https://media.example/s.mp4?duration=1790' } } },
    });
    expect(fits.status).toBe(201);
    expect(sim.state.quota().mediaMinutes).toBe(20);
  });
});

describe('agent jobs', () => {
  let sim: DescriptSimulator;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    clock = manualClock();
    sim = await startDescriptSimulator({ seed: 5, size: 20, clock: clock.now, jobDurationMs: 10_000 });
  });
  afterEach(() => sim.close());

  it('edits a project and reports the agent response', async () => {
    const project = sim.state.project(0) as any;
    const started = await call(sim, '/jobs/agent', {
      body: { project_id: project.id, prompt: 'add studio sound to every clip', model: 'claude-opus' },
    });
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({
      project_id: project.id,
      resolved_model: 'claude-opus-5.5',
      drive_id: sim.driveId,
    });
    expect(started.json.conversation_id).toMatch(/^[0-9a-f-]{36}$/);
    clock.advance(3_000);
    expect((await call(sim, `/jobs/${started.json.job_id}`)).json.progress.label).toBeTruthy();
    clock.advance(7_000);
    const job = (await call(sim, `/jobs/${started.json.job_id}`)).json;
    expect(job).toMatchObject({ job_type: 'agent', job_state: 'stopped' });
    expect(job.result).toMatchObject({
      status: 'success',
      project_changed: true,
      ai_credits_used: 100,
      resolved_model: 'claude-opus-5.5',
      conversation_id: started.json.conversation_id,
    });
    expect(sim.state.quota().aiCredits).toBe(4900);
    expect((await call(sim, `/projects/${project.id}`)).json.updated_at).toBe(job.stopped_at);

    const followUp = await call(sim, '/jobs/agent', {
      body: { project_id: project.id, prompt: 'now add captions', conversation_id: started.json.conversation_id },
    });
    expect(followUp.json.conversation_id).toBe(started.json.conversation_id);
    expect(followUp.json.resolved_model).toBe('auto');
    const elsewhere = await call(sim, '/jobs/agent', {
      body: {
        project_id: (sim.state.project(1) as any).id,
        prompt: 'x',
        conversation_id: started.json.conversation_id,
      },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.message).toBe(`Conversation ${started.json.conversation_id} belongs to a different project`);
  });

  it('fails an edit whose prompt asks for failure', async () => {
    const started = await call(sim, '/jobs/agent', {
      body: { project_name: 'Agent project', prompt: 'please fail at this' },
    });
    expect(started.status).toBe(201);
    clock.advance(10_000);
    const job = (await call(sim, `/jobs/${started.json.job_id}`)).json;
    expect(job.result).toMatchObject({
      status: 'error',
      error_code: 'agent_execution_failed',
      error_message: 'AI agent failed to process the request',
    });
  });

  it('checks the request the way the provider documents it', async () => {
    const id = (sim.state.project(0) as any).id;
    const cases: Array<[unknown, number, string]> = [
      [{ project_id: id, prompt: '   ' }, 400, 'Prompt cannot be empty'],
      [{ prompt: 'x' }, 400, 'Provide exactly one of project_id or project_name'],
      [{ project_id: id, project_name: 'y', prompt: 'x' }, 400, 'Provide exactly one of project_id or project_name'],
      [{ project_name: 'y', composition_id: '12345', prompt: 'x' }, 400, 'composition_id requires project_id'],
      [
        { project_id: id, composition_id: 'zzzzz', prompt: 'x' },
        404,
        `No composition matching 'zzzzz' found in project ${id}`,
      ],
      [
        { project_id: id, model: 'gpt-0', prompt: 'x' },
        400,
        "Unknown model 'gpt-0'; GET /agent/models lists the models and aliases",
      ],
    ];
    for (const [body, status, message] of cases) {
      const answer = await call(sim, '/jobs/agent', { body });
      expect({ status: answer.status, message: answer.json.message }).toEqual({ status, message });
    }
    sim.setAgentDisabled(true);
    const disabled = await call(sim, '/jobs/agent', { body: { project_id: id, prompt: 'x' } });
    expect(disabled.json).toEqual({ error: 'forbidden', message: 'Agent usage has been disabled by your admin' });
  });

  it('answers 402 with the provider message once AI credits run out', async () => {
    sim.setQuota({ aiCredits: 25 });
    const answer = await call(sim, '/jobs/agent', {
      body: { project_name: 'P', prompt: 'make it shine', model: 'claude-opus-5.5' },
    });
    expect(answer.status).toBe(402);
    expect(answer.json).toEqual({
      error: 'payment_required',
      message: 'Insufficient AI credits to start the job (100 credits required, 25 available)',
    });
    const cheap = await call(sim, '/jobs/agent', {
      body: { project_name: 'P', prompt: 'make it shine', model: 'claude-haiku' },
    });
    expect(cheap.status).toBe(201);
    expect(sim.state.quota().aiCredits).toBe(0);
  });
});

describe('GET /jobs', () => {
  let sim: DescriptSimulator;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    clock = manualClock();
    sim = await startDescriptSimulator({ seed: 9, size: 200, clock: clock.now, jobDurationMs: 10_000 });
  });
  afterEach(() => sim.close());

  it('lists the last 7 days by default, newest first, and reaches back 30 days', async () => {
    const recent = await call(sim, '/jobs?limit=100');
    expect(recent.status).toBe(200);
    expect(recent.json.data.length).toBeGreaterThan(0);
    for (const job of recent.json.data) expect(Date.parse(job.created_at)).toBeGreaterThanOrEqual(T0 - 7 * DAY);
    const month = await call(sim, `/jobs?limit=100&created_after=${new Date(T0 - 30 * DAY).toISOString()}`);
    expect(month.json.data.length).toBeGreaterThan(recent.json.data.length);
    const created = month.json.data.map((j: any) => j.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(month.json.data.every((j: any) => j.job_state === 'stopped')).toBe(true);
    expect(new Set(month.json.data.map((j: any) => j.result.status)).size).toBeGreaterThan(1);
  });

  it('refuses created_after older than 30 days', async () => {
    const answer = await call(sim, `/jobs?created_after=${new Date(T0 - 31 * DAY).toISOString()}`);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_input', message: 'created_after must be within the last 30 days' });
  });

  it('pages with a cursor and filters by type and project', async () => {
    const after = `created_after=${new Date(T0 - 30 * DAY).toISOString()}`;
    const all = (await call(sim, `/jobs?limit=100&${after}`)).json.data;
    const paged: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(sim, `/jobs?limit=7&${after}${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.json.data);
      cursor = page.json.pagination.next_cursor;
    } while (cursor);
    expect(paged.map((j) => j.job_id)).toEqual(all.map((j: any) => j.job_id));

    const agents = (await call(sim, `/jobs?limit=100&type=agent&${after}`)).json.data;
    expect(agents.length).toBeGreaterThan(0);
    expect(agents.every((j: any) => j.job_type === 'agent')).toBe(true);

    const started = await call(sim, '/jobs/agent', { body: { project_name: 'Fresh', prompt: 'cut it' } });
    const forProject = (await call(sim, `/jobs?project_id=${started.json.project_id}`)).json.data;
    expect(forProject.map((j: any) => j.job_id)).toEqual([started.json.job_id]);
  });

  it('continues a conversation from a past agent job', async () => {
    const after = `created_after=${new Date(T0 - 30 * DAY).toISOString()}`;
    const past = (await call(sim, `/jobs?limit=100&type=agent&${after}`)).json.data[0];
    const answer = await call(sim, '/jobs/agent', {
      body: { project_id: past.project_id, prompt: 'one more thing', conversation_id: past.result.conversation_id },
    });
    expect(answer.status).toBe(201);
    expect(answer.json.conversation_id).toBe(past.result.conversation_id);
  });

  it("answers 403 for another drive's job and 404 for an unknown one", async () => {
    const other = sim.otherDrives[0]?.token ?? '';
    const started = await call(sim, '/jobs/agent', { body: { project_name: 'Theirs', prompt: 'x' }, token: other });
    expect((await call(sim, `/jobs/${started.json.job_id}`)).status).toBe(403);
    const missing = await call(sim, '/jobs/6dc3f30a-58c2-4174-96a6-dc18cf3c7776');
    expect(missing.json).toEqual({
      error: 'not_found',
      message: 'No job found for job_id "6dc3f30a-58c2-4174-96a6-dc18cf3c7776".',
    });
  });
});
