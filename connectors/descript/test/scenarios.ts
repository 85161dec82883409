import { fileURLToPath } from 'node:url';
import type { DescriptSimulator } from '@plugboard/simulator-descript';
import { defineScenario, type RecordedOutcome, type Scenario } from '@plugboard/testing';
import { type Clock, projectId, projectWithPublishes, T0 } from './support.js';

/**
 * The recorded scenarios, in the order they are recorded from one simulator (seed 7, 30
 * projects, its clock and the connector's fixed at 2026-03-02T12:00:00Z): every action's success
 * paths, pagination to the end, the incremental first and second runs, the provider's errors,
 * and the refusals made before any request (their fixtures hold no call). Replayed by the
 * standard suite (suite.test.ts) and checked against the OpenAPI document (conformance.test.ts).
 */

export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The two-run pairs of the incremental sources. */
export const INCREMENTAL = [
  { first: 'projects.list', then: 'projects.list.since' },
  { first: 'jobs.list', then: 'jobs.list.since' },
] as const;

/** Identity of a record for "no record read twice": a project changed since is a new version of it. */
export function recordKey(record: unknown, action: string): unknown {
  const fields = (record ?? {}) as Record<string, unknown>;
  if (action === 'projects.list') return `${String(fields['id'])}@${String(fields['updated_at'])}`;
  if (action === 'jobs.list') return fields['job_id'];
  return fields['id'] ?? record;
}

export interface RecordingStep {
  /** The scenario, or a function of the outcomes recorded before it (for ids and checkpoints they gave). */
  scenario: Scenario | ((done: ReadonlyMap<string, RecordedOutcome>) => Scenario);
  /** Prepares the simulator just before recording (scripted answers, quotas, the clock). */
  setup?: (sim: DescriptSimulator, clock: Clock) => void;
  /** Undoes the setup after recording. */
  teardown?: (sim: DescriptSimulator) => void;
  /** Records with another credential than the simulator's token. */
  credential?: string;
}

const MISSING = '00000000-0000-4000-8000-000000000000';
const media = (name: string, seconds: number) =>
  `https://media.example.com/uploads/${name}?duration=${seconds}&signature=presigned-example`;

function outcomeOf(
  done: ReadonlyMap<string, RecordedOutcome>,
  name: string,
): { records: Array<Record<string, unknown>>; checkpoint?: unknown } {
  const outcome = done.get(name);
  if (!outcome || !('records' in outcome)) throw new Error(`scenario '${name}' must be recorded, successfully, first`);
  return outcome as { records: Array<Record<string, unknown>>; checkpoint?: unknown };
}

export function recordingPlan(sim: DescriptSimulator): RecordingStep[] {
  const newest = projectId(sim, sim.state.projectCount() - 1);
  const published = projectWithPublishes(sim);
  const otherDrive = sim.otherDrives[0]!;
  const elsewhere = projectId(sim, 0, otherDrive.driveId);
  const [slug, processingSlug, failedSlug] = sim.state.publishSlugs(3);
  const newestComposition =
    (sim.state.project(sim.state.projectCount() - 1)?.['compositions'] as Array<{ id: string }> | undefined)?.[0]?.id ??
    '';
  const importJob = (done: ReadonlyMap<string, RecordedOutcome>) =>
    String(outcomeOf(done, 'media_imports.create').records[0]?.['job_id']);
  const s = (scenario: Scenario) => defineScenario(scenario);

  return [
    // ---- Token and models ----
    { scenario: s({ name: 'status.get', action: 'status.get', input: {} }) },
    {
      scenario: s({
        name: 'status.get.unauthorized',
        action: 'status.get',
        input: {},
        expect: { error: 'authentication_failed' },
        description: 'A wrong token: 401.',
      }),
      credential: 'dsim_0000000000000000wrong-token',
    },
    { scenario: s({ name: 'agent_models.list', action: 'agent_models.list', input: {} }) },
    {
      scenario: s({
        name: 'agent_models.list.rate-limited-waited',
        action: 'agent_models.list',
        input: {},
        description: 'A 429 with Retry-After: 1 on a read: the budget waits a second and the read is sent again.',
      }),
      setup: (simulator) =>
        simulator.failNext({
          status: 429,
          path: '/agent/models',
          headers: { 'Retry-After': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Consumed': '120' },
          body: { error: 'rate_limit_exceeded', message: 'Too many requests. Please try again later.' },
        }),
    },

    // ---- Projects (the first incremental run pages to the end: 30 projects, 10 a page) ----
    {
      scenario: s({
        name: 'projects.list',
        action: 'projects.list',
        input: { limit: 10 },
        description: 'First run: every project over three pages, oldest update first.',
      }),
    },
    {
      scenario: s({
        name: 'projects.list.filtered',
        action: 'projects.list',
        input: { name: 'podcast', folder_path: 'Marketing/Social', limit: 100 },
      }),
    },
    { scenario: s({ name: 'projects.get', action: 'projects.get', input: { project_id: published } }) },
    {
      scenario: s({
        name: 'projects.get.other-drive',
        action: 'projects.get',
        input: { project_id: elsewhere },
        expect: { error: 'permission_denied' },
        description: 'A project of another drive: 403, with the project named.',
      }),
    },
    {
      scenario: s({
        name: 'projects.get.not-found',
        action: 'projects.get',
        input: { project_id: MISSING },
        expect: { error: 'not_found' },
      }),
    },
    { scenario: s({ name: 'compositions.list', action: 'compositions.list', input: { project_id: published } }) },
    { scenario: s({ name: 'media_files.list', action: 'media_files.list', input: { project_id: published } }) },
    { scenario: s({ name: 'publishes.list', action: 'publishes.list', input: { project_id: published } }) },

    // ---- Search ----
    {
      scenario: s({
        name: 'drive_items.search',
        action: 'drive_items.search',
        input: {
          query: 'quarterly',
          type: ['project', 'video', 'audio'],
          match: ['name', 'content'],
          sort: 'newest',
          updated_after: '2026-01-01',
          limit: 10,
        },
      }),
    },
    {
      scenario: s({
        name: 'drive_items.search.visual-not-enabled',
        action: 'drive_items.search',
        input: { query: 'kitchen', match: ['visual'] },
        expect: { error: 'permission_denied' },
        description: 'Visual matching on a drive without the Enterprise plan: 403.',
      }),
    },

    // ---- Share pages ----
    { scenario: s({ name: 'published_projects.get', action: 'published_projects.get', input: { slug } }) },
    {
      scenario: s({
        name: 'published_projects.get.processing',
        action: 'published_projects.get',
        input: { slug: `https://share.descript.com/view/${processingSlug}` },
        expect: { error: 'conflict' },
        description:
          'Still processing: 409 with state processing (worth retrying later); the slug given as a share URL.',
      }),
      setup: (simulator) => simulator.setPublishState(processingSlug!, 'processing'),
    },
    {
      scenario: s({
        name: 'published_projects.get.failed',
        action: 'published_projects.get',
        input: { slug: failedSlug },
        expect: { error: 'conflict' },
        description: 'The publish failed: 409 with state failed (not worth retrying).',
      }),
      setup: (simulator) => simulator.setPublishState(failedSlug!, 'failed'),
    },

    // ---- Transcripts ----
    {
      scenario: s({
        name: 'transcripts.get',
        action: 'transcripts.get',
        input: {
          project_id: published,
          format: 'markdown',
          include_speaker_labels: 'every_paragraph',
          include_markers: true,
          timecodes: { on_paragraphs: true },
        },
      }),
    },
    {
      scenario: s({
        name: 'transcripts.get.srt',
        action: 'transcripts.get',
        input: { project_id: newest, format: 'srt', composition_id: newestComposition },
      }),
    },
    { scenario: s({ name: 'transcripts.get.txt', action: 'transcripts.get', input: { project_id: newest } }) },
    {
      scenario: s({
        name: 'transcripts.get.refused-docx',
        action: 'transcripts.get',
        input: { project_id: newest, format: 'docx' },
        expect: { error: 'invalid_input' },
        description: 'DOCX is refused before any request.',
      }),
    },
    {
      scenario: s({
        name: 'transcripts.get.other-drive',
        action: 'transcripts.get',
        input: { project_id: elsewhere, format: 'txt' },
        expect: { error: 'permission_denied' },
      }),
    },

    // ---- Jobs before any write (the first incremental run: 7 days back, three a page) ----
    {
      scenario: s({
        name: 'jobs.list',
        action: 'jobs.list',
        input: { limit: 3 },
        description: 'First run: the last 7 days, newest first, every page.',
      }),
    },
    {
      scenario: s({
        name: 'jobs.list.clamped',
        action: 'jobs.list',
        input: {},
        checkpoint: { created_after: '2026-01-15T00:00:00Z', seen_ids: [] },
        description: 'A checkpoint older than 30 days reads from 30 days ago (with a warning), not an error.',
      }),
    },
    {
      scenario: (done) =>
        s({
          name: 'jobs.get',
          action: 'jobs.get',
          input: { job_id: String(outcomeOf(done, 'jobs.list').records[0]?.['job_id']) },
        }),
    },
    {
      scenario: s({
        name: 'jobs.get.not-found',
        action: 'jobs.get',
        input: { job_id: MISSING },
        expect: { error: 'not_found' },
      }),
    },

    // ---- Media imports ----
    {
      scenario: s({
        name: 'media_imports.create',
        action: 'media_imports.create',
        environment: 'production',
        approvedBy: 'test-approver',
        input: {
          project_name: 'Launch video',
          folder_name: 'Clients/Acme',
          team_access: 'edit',
          add_media: {
            'Recordings/camera1.mp4': { url: media('camera1.mp4', 120) },
            'Recordings/camera2.mp4': { url: media('camera2.mp4', 118) },
            'Music/theme.mp3': { url: media('theme.mp3', 60), language: 'en' },
            Multicam: {
              tracks: [{ media: 'Recordings/camera1.mp4' }, { media: 'Recordings/camera2.mp4', offset: 1.5 }],
            },
          },
          add_compositions: [
            {
              name: 'Rough cut',
              width: 1920,
              height: 1080,
              clips: [{ media: 'Multicam' }, { media: 'Music/theme.mp3', mute: true }],
            },
          ],
        },
        description:
          'A new project from URLs and a multitrack sequence, with a composition; in production with an approval.',
      }),
    },
    {
      scenario: s({
        name: 'media_imports.create.existing-project',
        action: 'media_imports.create',
        input: {
          project_id: newest,
          add_media: { 'Interviews/guest.wav': { url: media('guest.wav', 300), language: 'en' } },
        },
      }),
    },
    {
      scenario: s({
        name: 'media_imports.create.media-minutes-exhausted',
        action: 'media_imports.create',
        input: { project_name: 'Long recording', add_media: { 'long.mp4': { url: media('long.mp4', 600) } } },
        expect: { error: 'quota_exhausted' },
        description: '402: ten media minutes required, three available.',
      }),
      setup: (simulator) => simulator.setQuota({ mediaMinutes: 3 }),
      teardown: (simulator) => simulator.setQuota({ mediaMinutes: 6000 }),
    },
    {
      scenario: s({
        name: 'media_imports.create.rate-limited-not-retried',
        action: 'media_imports.create',
        input: { project_name: 'Rate limited', add_media: { 'clip.mp4': { url: media('clip.mp4', 30) } } },
        expect: { error: 'rate_limited' },
        description: 'A 429 on a billable write: reported after one request, never sent again.',
      }),
      setup: (simulator) =>
        simulator.failNext({
          status: 429,
          path: '/jobs/import/project_media',
          headers: { 'Retry-After': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Consumed': '120' },
          body: { error: 'rate_limit_exceeded', message: 'Too many requests. Please try again later.' },
        }),
    },
    ...refusal('media_imports.create.refused-direct-upload', 'media_imports.create', {
      project_name: 'Upload',
      add_media: { 'recording.mp4': { content_type: 'video/mp4', file_size: 52428800 } },
    }),
    ...refusal('media_imports.create.refused-video-site', 'media_imports.create', {
      project_name: 'Watch page',
      add_media: { 'talk.mp4': { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' } },
    }),
    ...refusal('media_imports.create.refused-credentials-in-url', 'media_imports.create', {
      project_name: 'Credentials',
      add_media: { 'talk.mp4': { url: 'https://user:secret@media.example.com/uploads/talk.mp4' } },
    }),
    ...refusal('media_imports.create.refused-not-http', 'media_imports.create', {
      project_name: 'FTP',
      add_media: { 'talk.mp4': { url: 'ftp://files.example.com/talk.mp4' } },
    }),
    ...refusal('media_imports.create.refused-both-projects', 'media_imports.create', {
      project_id: newest,
      project_name: 'Both',
      add_media: { 'talk.mp4': { url: media('talk.mp4', 30) } },
    }),
    ...refusal('media_imports.create.refused-no-project', 'media_imports.create', {
      add_media: { 'talk.mp4': { url: media('talk.mp4', 30) } },
    }),
    {
      scenario: s({
        name: 'media_imports.create.refused-private-host',
        action: 'media_imports.create',
        environment: 'production',
        input: { project_name: 'Intranet', add_media: { 'talk.mp4': { url: 'http://192.168.10.20/media/talk.mp4' } } },
        expect: { error: 'invalid_input' },
        description:
          'In production a private address is refused before any request, and before an approval is asked for.',
      }),
    },

    // ---- Agent edits ----
    {
      scenario: s({
        name: 'agent_edits.create',
        action: 'agent_edits.create',
        input: { project_id: newest, prompt: 'remove all filler words', model: 'claude-haiku' },
      }),
    },
    {
      scenario: (done) =>
        s({
          name: 'agent_edits.create.continue',
          action: 'agent_edits.create',
          input: {
            project_id: newest,
            conversation_id: String(outcomeOf(done, 'agent_edits.create').records[0]?.['conversation_id']),
            prompt: 'now also add captions',
          },
        }),
    },
    {
      scenario: s({
        name: 'agent_edits.create.new-project',
        action: 'agent_edits.create',
        environment: 'production',
        approvedBy: 'test-approver',
        input: {
          project_name: 'Cooking tips short',
          team_access: 'view',
          prompt: 'create a 30-second video about cooking tips',
        },
      }),
    },
    {
      scenario: s({
        name: 'agent_edits.create.ai-credits-exhausted',
        action: 'agent_edits.create',
        input: { project_id: newest, prompt: 'add studio sound to every clip', model: 'claude-opus' },
        expect: { error: 'quota_exhausted' },
        description: '402: 100 AI credits required, 10 available.',
      }),
      setup: (simulator) => simulator.setQuota({ aiCredits: 10 }),
      teardown: (simulator) => simulator.setQuota({ aiCredits: 5000 }),
    },
    {
      scenario: s({
        name: 'agent_edits.create.agent-disabled',
        action: 'agent_edits.create',
        input: { project_id: newest, prompt: 'add studio sound to every clip' },
        expect: { error: 'agent_disabled' },
        description: '403 Agent usage has been disabled by your admin.',
      }),
      setup: (simulator) => simulator.setAgentDisabled(true),
      teardown: (simulator) => simulator.setAgentDisabled(false),
    },
    {
      scenario: s({
        name: 'agent_edits.create.other-drive',
        action: 'agent_edits.create',
        input: { project_id: elsewhere, prompt: 'add captions' },
        expect: { error: 'permission_denied' },
      }),
    },
    ...refusal('agent_edits.create.refused-composition-without-project', 'agent_edits.create', {
      project_name: 'New',
      composition_id: '39677',
      prompt: 'add captions',
    }),
    ...refusal('agent_edits.create.refused-team-access-with-project-id', 'agent_edits.create', {
      project_id: newest,
      team_access: 'edit',
      prompt: 'add captions',
    }),
    ...refusal('agent_edits.create.refused-no-project', 'agent_edits.create', { prompt: 'add captions' }),

    // ---- The import job while it runs and once it stopped (jobs take 20 s) ----
    {
      scenario: (done) =>
        s({
          name: 'jobs.get.running',
          action: 'jobs.get',
          input: { job_id: importJob(done) },
          description: 'Five seconds in: running, with progress.',
        }),
      setup: (_simulator, clock) => {
        clock.now = T0 + 5_000;
      },
    },
    {
      scenario: (done) =>
        s({
          name: 'jobs.get.stopped',
          action: 'jobs.get',
          input: { job_id: importJob(done) },
          description: 'Thirty seconds in: stopped, with the import results.',
        }),
      setup: (_simulator, clock) => {
        clock.now = T0 + 30_000;
      },
    },

    // ---- Second incremental runs, from the first runs' checkpoints ----
    {
      scenario: (done) =>
        s({
          name: 'jobs.list.since',
          action: 'jobs.list',
          input: { limit: 3 },
          checkpoint: outcomeOf(done, 'jobs.list').checkpoint,
          description: 'Second run: only the jobs the writes above started.',
        }),
    },
    {
      scenario: (done) =>
        s({
          name: 'projects.list.since',
          action: 'projects.list',
          input: { limit: 10 },
          checkpoint: outcomeOf(done, 'projects.list').checkpoint,
          description: 'Second run: the projects created and changed by the writes above.',
        }),
    },
  ];
}

/** A scenario refused before any request: its fixture holds no call. */
function refusal(name: string, action: string, input: unknown): RecordingStep[] {
  return [
    {
      scenario: defineScenario({
        name,
        action,
        input,
        expect: { error: 'invalid_input' },
        description: 'Refused before any request.',
      }),
    },
  ];
}
