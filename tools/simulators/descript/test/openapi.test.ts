import { afterAll, beforeAll, describe, expect } from 'vitest';
import { loadOpenApi, startDescriptSimulator, type DescriptSimulator, type OpenApiDocument } from '../src/index.js';
import { HAS_OPENAPI, itWithOpenApi, OPENAPI_PATH, T0, call, manualClock, type Answer } from './helpers.js';

describe('requests checked against the OpenAPI document', () => {
  let sim: DescriptSimulator;
  let project: any;
  beforeAll(async () => {
    if (!HAS_OPENAPI) return;
    sim = await startDescriptSimulator({ seed: 8, size: 30, clock: () => T0, openapiPath: OPENAPI_PATH });
    project = sim.state.project(29);
  });
  afterAll(() => sim?.close());

  const rejects = async (path: string, body: unknown, message: string) => {
    const answer = await call(sim, path, body === undefined ? {} : { body });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_input', message });
  };

  itWithOpenApi('rejects a bad query, path or body, naming the violation', async () => {
    await rejects('/projects?limit=500', undefined, "query parameter 'limit' must be <= 100");
    await rejects(
      '/projects?sort=size',
      undefined,
      'query parameter \'sort\' must be one of "name", "created_at", "updated_at", "last_viewed_at"',
    );
    await rejects(
      '/projects?updatedAfter=2026-01-01T00:00:00Z',
      undefined,
      "query parameter 'updatedAfter' is not defined for GET /projects",
    );
    await rejects('/projects/not-a-uuid', undefined, 'path parameter \'project_id\' must match format "uuid"');
    await rejects('/search', undefined, "query parameter 'query' is required");
    await rejects(
      '/search?query=x&type=podcast',
      undefined,
      'query parameter \'type\' must be one of "project", "video", "image", "audio", "project_folder", "media_library_folder", "layout_pack"',
    );
    await rejects('/export/transcript', { project_id: project.id }, "request body must have the property 'format'");
    await rejects(
      '/export/transcript',
      { project_id: project.id, format: 'txt', colour: 'red' },
      "request body must not have the property 'colour'",
    );
    await rejects('/jobs/agent', { project_id: project.id }, "request body must have the property 'prompt'");
    await rejects(
      '/jobs/import/project_media',
      { project_name: 'X', add_media: { 'a.mp4': { url: 'not a url' } } },
      'request body field \'add_media["a.mp4"].url\' must match format "uri"',
    );
    await rejects(
      '/jobs/import/project_media',
      { project_name: 'X', add_media: { Seq: { tracks: [] } } },
      "request body field 'add_media.Seq.tracks' must NOT have fewer than 1 items",
    );
  });

  itWithOpenApi('accepts good requests, including repeated array parameters', async () => {
    const good: Array<[string, unknown?]> = [
      ['/status'],
      ['/projects?limit=100&sort=updated_at&direction=asc&updated_after=2026-01-01T00:00:00Z'],
      [`/projects/${project.id}`],
      ['/search?query=demo&type=project&type=video&match=name&match=content&limit=10'],
      [`/jobs?created_after=${new Date(T0 - 20 * 86_400_000).toISOString()}&type=agent`],
      [
        '/export/transcript',
        { project_id: project.id, format: 'srt', include_speaker_labels: 'off', timecodes: { on_paragraphs: true } },
      ],
      [
        '/jobs/import/project_media',
        { project_name: 'OK', add_media: { 'a.mp4': { url: 'https://media.example/a.mp4', language: 'en' } } },
      ],
    ];
    for (const [path, body] of good) {
      const answer = await call(sim, path, body === undefined ? {} : { body });
      expect(answer.status, `${path} answered ${answer.text}`).toBeLessThan(300);
    }
  });
});

describe('simulator answers conform to the OpenAPI document', () => {
  let sim: DescriptSimulator;
  let document: OpenApiDocument;
  const clock = manualClock();
  beforeAll(async () => {
    if (!HAS_OPENAPI) return;
    document = loadOpenApi(OPENAPI_PATH);
    sim = await startDescriptSimulator({
      seed: 12,
      size: 60,
      clock: clock.now,
      jobDurationMs: 10_000,
      openapiPath: OPENAPI_PATH,
      rateLimit: { limit: 1000, windowMs: 60_000 },
    });
  });
  afterAll(() => sim?.close());

  const conforms = (method: string, path: string, answer: Answer) => {
    const body = answer.json ?? answer.text;
    expect(
      document.validateResponse(
        method,
        `/v1${path}`,
        answer.status,
        answer.headers.get('content-type') ?? undefined,
        body,
      ),
    ).toEqual([]);
  };

  itWithOpenApi('knows the document it loaded', () => {
    expect(document.apiVersion).toBe('1.2');
    expect(document.basePath).toBe('/v1');
    expect(
      document.validateResponse('GET', '/v1/status', 200, 'application/json', {
        drive_id: 'nope',
        drive_name: null,
        api_version: '1.2',
      }),
    ).toEqual(['response body of GET /status status 200 field \'drive_id\' must match format "uuid"']);
    expect(document.validateResponse('GET', '/v1/status', 418, 'application/json', {})).toEqual([
      'status 418 is not documented for GET /status',
    ]);
  });

  itWithOpenApi('for reads, job lifecycles and errors', async () => {
    const reads = [
      '/status',
      '/agent/models',
      '/projects?limit=50',
      '/projects?sort=name&direction=asc',
      '/search?query=tips',
      '/search?query=logo&type=image',
      '/search?query=acme',
    ];
    for (const path of reads) conforms('GET', path, await call(sim, path));
    for (const ordinal of [0, 17, 59]) {
      const detail = sim.state.project(ordinal) as any;
      conforms('GET', `/projects/${detail.id}`, await call(sim, `/projects/${detail.id}`));
      for (const format of ['txt', 'markdown', 'html', 'rtf', 'srt']) {
        conforms(
          'POST',
          '/export/transcript',
          await call(sim, '/export/transcript', { body: { project_id: detail.id, format } }),
        );
      }
    }
    for (const slug of sim.state.publishSlugs(3))
      conforms('GET', `/published_projects/${slug}`, await call(sim, `/published_projects/${slug}`));

    const imported = await call(sim, '/jobs/import/project_media', {
      body: {
        project_name: 'Conformance',
        add_media: {
          'a.mp4': { url: 'https://media.example/a.mp4' },
          'b.mp4': { url: 'https://media.example/broken.mp4' },
        },
        add_compositions: [{ clips: [{ media: 'a.mp4' }] }],
      },
    });
    conforms('POST', '/jobs/import/project_media', imported);
    const agent = await call(sim, '/jobs/agent', {
      body: { project_id: imported.json.project_id, prompt: 'tighten the pacing' },
    });
    conforms('POST', '/jobs/agent', agent);
    const failing = await call(sim, '/jobs/agent', { body: { project_name: 'Nope', prompt: 'fail please' } });
    for (const step of [0, 5_000, 10_000]) {
      clock.advance(step);
      for (const id of [imported.json.job_id, agent.json.job_id, failing.json.job_id])
        conforms('GET', `/jobs/${id}`, await call(sim, `/jobs/${id}`));
    }
    conforms(
      'GET',
      '/jobs',
      await call(sim, `/jobs?limit=100&created_after=${new Date(clock.now() - 29 * 86_400_000).toISOString()}`),
    );

    const [slug = ''] = sim.state.publishSlugs(1);
    sim.setPublishState(slug, 'processing');
    conforms('GET', `/published_projects/${slug}`, await call(sim, `/published_projects/${slug}`));
    sim.setQuota({ mediaMinutes: 0, aiCredits: 0 });
    conforms(
      'POST',
      '/jobs/import/project_media',
      await call(sim, '/jobs/import/project_media', {
        body: { project_name: 'X', add_media: { 'a.mp4': { url: 'https://media.example/a.mp4' } } },
      }),
    );
    conforms('POST', '/jobs/agent', await call(sim, '/jobs/agent', { body: { project_name: 'X', prompt: 'x' } }));
    conforms('GET', '/status', await call(sim, '/status', { token: 'wrong' }));
    conforms('GET', '/search', await call(sim, '/search?query=x&limit=500'));
    conforms(
      'GET',
      '/projects/9f36ee32-5a2c-47e7-b1a3-94991d3e3ddb',
      await call(sim, '/projects/9f36ee32-5a2c-47e7-b1a3-94991d3e3ddb'),
    );
  });
});
