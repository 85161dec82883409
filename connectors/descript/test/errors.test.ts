import {
  ApprovalRequiredError,
  AuthenticationError,
  NotFoundError,
  PermissionError,
  ProviderUnavailableError,
  QuotaExhaustedError,
  RateLimitedError,
  readAll,
  SchemaMismatchError,
  writeAction,
} from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { AgentDisabledError } from '../src/index.js';
import { failure, projectId, useHarness } from './support.js';

/** The provider's errors against the simulator, and the two billable writes. */

const harness = useHarness();
const media = (name: string, seconds: number) => `https://media.example.com/uploads/${name}?duration=${seconds}`;
const RATE_LIMITED = { error: 'rate_limit_exceeded', message: 'Too many requests. Please try again later.' };

/** The id of the simulator's answer to the latest request: every error must carry it. */
const lastRequestId = (h: Awaited<ReturnType<typeof harness>>) => h.sim.requests.at(-1)?.id;

describe('media_imports.create and agent_edits.create', () => {
  it('start a job and return its receipt', async () => {
    const h = await harness();
    const imported = await writeAction(
      h.connector,
      'media_imports.create',
      h.options({
        project_name: 'Interview',
        add_media: {
          'cam1.mp4': { url: media('cam1.mp4', 60) },
          'cam2.mp4': { url: media('cam2.mp4', 60) },
          Multicam: { tracks: [{ media: 'cam1.mp4' }, { media: 'cam2.mp4', offset: 2 }] },
        },
        add_compositions: [{ name: 'Cut', clips: [{ media: 'Multicam' }] }],
      }),
    );
    expect(imported).toMatchObject({
      job_id: expect.any(String),
      drive_id: h.sim.driveId,
      project_id: expect.any(String),
      project_url: expect.stringMatching(/^https:\/\//),
    });
    const edited = await writeAction(
      h.connector,
      'agent_edits.create',
      h.options({
        project_id: (imported as { project_id: string }).project_id,
        prompt: 'add studio sound',
        model: 'claude-haiku',
      }),
    );
    expect(edited).toMatchObject({
      project_id: (imported as { project_id: string }).project_id,
      conversation_id: expect.any(String),
      resolved_model: 'claude-haiku-5.5',
    });
    expect(h.requestsTo('/jobs/agent')[0]?.body).toEqual({
      project_id: (imported as { project_id: string }).project_id,
      prompt: 'add studio sound',
      model: 'claude-haiku',
    });
  });

  it('need an approval bound to the run in production, and none in the sandbox', async () => {
    const h = await harness();
    const input = { project_name: 'Approved', prompt: 'create a short intro' };
    const refused = await failure(
      writeAction(h.connector, 'agent_edits.create', h.options(input, { environment: 'production' })),
    );
    expect(refused).toBeInstanceOf(ApprovalRequiredError);
    expect(h.sim.requests).toHaveLength(0);
    await writeAction(h.connector, 'agent_edits.create', h.approved('agent_edits.create', input));
    expect(h.requestsTo('/jobs/agent')).toHaveLength(1);
  });

  for (const [action, path, input] of [
    [
      'media_imports.create',
      '/jobs/import/project_media',
      { project_name: 'Once', add_media: { 'a.mp4': { url: media('a.mp4', 30) } } },
    ],
    ['agent_edits.create', '/jobs/agent', { project_name: 'Once', prompt: 'add captions' }],
  ] as const) {
    it(`${action} is sent exactly once on a 503 and on a 429 (billable: never retried)`, async () => {
      const h = await harness();
      h.sim.failNext({ status: 503, path, body: { error: 'internal_error', message: 'Service unavailable' } });
      const down = await failure(writeAction(h.connector, action, h.options(input)));
      expect(down).toBeInstanceOf(ProviderUnavailableError);
      expect(down['requestId']).toBe(lastRequestId(h));
      expect(h.requestsTo(path)).toHaveLength(1);

      h.sim.failNext({
        status: 429,
        path,
        headers: { 'Retry-After': '1', 'X-RateLimit-Remaining': '0' },
        body: RATE_LIMITED,
      });
      const limited = await failure(writeAction(h.connector, action, h.options(input)));
      expect(limited).toBeInstanceOf(RateLimitedError);
      expect(limited['retryAfterMs']).toBe(1000);
      expect(h.requestsTo(path)).toHaveLength(2);
    });
  }
});

describe('402: the quota that ran out, with the amounts', () => {
  it('media minutes for an import', async () => {
    const h = await harness({ mediaMinutes: 50 });
    const error = await failure(
      writeAction(
        h.connector,
        'media_imports.create',
        h.options({ project_name: 'Long', add_media: { 'long.mp4': { url: media('long.mp4', 18_000) } } }),
      ),
    );
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({
      code: 'quota_exhausted',
      quota: 'media_minutes',
      unit: 'minutes',
      required: 300,
      available: 50,
      retryable: false,
      status: 402,
    });
    expect(error['requestId']).toBe(lastRequestId(h));
    expect(error.message).toMatch(/Insufficient media minutes .*300 minutes required, 50 available.*request /);
    expect(h.requestsTo('/jobs/import/project_media')).toHaveLength(1);
  });

  it('AI credits for an agent edit', async () => {
    const h = await harness({ aiCredits: 25 });
    const error = await failure(
      writeAction(
        h.connector,
        'agent_edits.create',
        h.options({ project_id: projectId(h.sim, 4), prompt: 'add captions', model: 'claude-opus' }),
      ),
    );
    expect(error).toMatchObject({
      code: 'quota_exhausted',
      quota: 'ai_credits',
      unit: 'credits',
      required: 100,
      available: 25,
      status: 402,
    });
    expect(error['requestId']).toBe(lastRequestId(h));
  });
});

describe('429 on a read waits for Retry-After, then reads again', () => {
  it('once, after a second', async () => {
    const h = await harness();
    h.sim.failNext({
      status: 429,
      path: '/status',
      headers: { 'Retry-After': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Consumed': '40' },
      body: RATE_LIMITED,
    });
    const started = performance.now();
    const { records } = await readAll(h.connector, 'status.get', h.options({}));
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(records).toHaveLength(1);
    expect(h.requestsTo('/status').map((request) => request.status)).toEqual([429, 200]);
  });

  it("under the simulator's own rate limit, the reads of a whole listing get through", async () => {
    // The simulator's rate window needs a clock that moves.
    const h = await harness({ rateLimit: { limit: 3, windowMs: 1_000 }, clock: Date.now });
    const run = await readAll(h.connector, 'projects.list', h.options({ limit: 5 }));
    expect(run.records).toHaveLength(30);
    expect(h.requestsTo('/projects').filter((request) => request.status === 200)).toHaveLength(6);
  });
});

describe('published_projects.get has its own budget of 1,000 an hour per connection', () => {
  it('once the provider says none are left, it fails at once with rate_limited while other actions go on', async () => {
    const h = await harness({ publishedRateLimit: { limit: 2, windowMs: 3_600_000 } });
    const [slug] = h.sim.state.publishSlugs(1);
    await readAll(h.connector, 'published_projects.get', h.options({ slug }));
    await readAll(h.connector, 'published_projects.get', h.options({ slug }));
    const error = await failure(readAll(h.connector, 'published_projects.get', h.options({ slug })));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.message).toMatch(/rate budget '[^']*published_projects\.get' is paused/);
    expect(h.requestsTo(/^\/published_projects\//)).toHaveLength(2);
    const status = await readAll(h.connector, 'status.get', h.options({}));
    expect(status.records).toHaveLength(1);
  });
});

describe('errors name what went wrong and carry the request id', () => {
  it('401 on a wrong token', async () => {
    const h = await harness();
    const error = await failure(
      readAll(h.connector, 'status.get', h.options({}, { credential: () => 'dsim_not-the-token-000000000000' })),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 'authentication_failed', status: 401, requestId: lastRequestId(h) });
    expect(error.message).not.toContain('dsim_not-the-token');
    expect((error as unknown as AuthenticationError).toPlatformError('/x')).toMatchObject({
      error: 'request_failed',
      statusCode: 401,
      requestId: lastRequestId(h),
      code: 'authentication_failed',
    });
  });

  it('a project on another drive: a permission error naming the project, for reads and writes', async () => {
    const h = await harness();
    const elsewhere = projectId(h.sim, 0, h.sim.otherDrives[0]!.driveId);
    const runs = [
      () => readAll(h.connector, 'projects.get', h.options({ project_id: elsewhere })),
      () => readAll(h.connector, 'media_files.list', h.options({ project_id: elsewhere })),
      () => readAll(h.connector, 'transcripts.get', h.options({ project_id: elsewhere })),
      () =>
        writeAction(h.connector, 'agent_edits.create', h.options({ project_id: elsewhere, prompt: 'add captions' })),
      () =>
        writeAction(
          h.connector,
          'media_imports.create',
          h.options({ project_id: elsewhere, add_media: { 'a.mp4': { url: media('a.mp4', 30) } } }),
        ),
    ];
    for (const run of runs) {
      const error = await failure(run());
      expect(error).toBeInstanceOf(PermissionError);
      expect(error).toMatchObject({ code: 'permission_denied', status: 403, requestId: lastRequestId(h) });
      expect(error.message).toContain(
        `project ${elsewhere} is not reachable with this token: it belongs to another drive`,
      );
    }
  });

  it('an unknown project or job: not found, naming it', async () => {
    const h = await harness();
    const missing = '00000000-0000-4000-8000-000000000000';
    const project = await failure(readAll(h.connector, 'compositions.list', h.options({ project_id: missing })));
    expect(project).toBeInstanceOf(NotFoundError);
    expect(project.message).toContain(`project ${missing} was not found in the drive this token is tied to`);
    const job = await failure(readAll(h.connector, 'jobs.get', h.options({ job_id: missing })));
    expect(job).toMatchObject({ code: 'not_found', status: 404, requestId: lastRequestId(h) });
    expect(job.message).toContain(`No job found for job_id "${missing}"`);
  });

  it('agent usage disabled by an admin: its own code, not retryable, not mistaken for another drive', async () => {
    const h = await harness();
    h.sim.setAgentDisabled(true);
    const error = await failure(
      writeAction(
        h.connector,
        'agent_edits.create',
        h.options({ project_id: projectId(h.sim, 3), prompt: 'add captions' }),
      ),
    );
    expect(error).toBeInstanceOf(AgentDisabledError);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ code: 'agent_disabled', retryable: false, status: 403, requestId: lastRequestId(h) });
    expect(error.message).toMatch(/Agent usage has been disabled by your admin/);
    expect(error.message).not.toMatch(/another drive/);
  });

  it("a listed record without a usable timestamp: a schema mismatch naming the page's request", async () => {
    const h = await harness();
    h.sim.failNext({
      status: 200,
      path: '/jobs',
      body: { data: [{ job_id: 'j1', created_at: 'yesterday' }], pagination: {} },
    });
    const error = await failure(readAll(h.connector, 'jobs.list', h.options({})));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({ code: 'schema_mismatch', requestId: lastRequestId(h) });
    expect(error.message).toMatch(/no usable created_at/);
  });

  it('visual search on a drive without Enterprise: a permission error that says so', async () => {
    const h = await harness();
    const error = await failure(
      readAll(h.connector, 'drive_items.search', h.options({ query: 'kitchen', match: ['visual'] })),
    );
    expect(error).toMatchObject({ code: 'permission_denied', status: 403 });
    expect(error.message).toMatch(/Enterprise/);
  });
});
