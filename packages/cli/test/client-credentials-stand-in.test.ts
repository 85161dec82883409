import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ManualClock, manualClock } from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';
import { bufferIo, PACK, pluginFolderWith } from './support.js';

/**
 * A client credentials connection (no sign-in) pointed at `plugboard mock`'s stand-in
 * authorization server with `--auth-base-url`: `run`, `record`, `check`, `options` and
 * `run --plugins` get their tokens from the stand-in's client credentials grant, the client
 * from PLUGBOARD_CREDENTIAL. The stand-in is a confidential client's (as the mock is with
 * PLUGBOARD_CLIENT_SECRET) and its time is the test's clock; the connector declares the
 * provider's token URL (a server that counts what reaches it: nothing may).
 */

const CLIENT = 'plugboard-mock';
const SECRET = 'stand-in-secret-7c1e0b';
/** The stand-in's clock alone moves: by the CLI's own (real) clock its token stays fresh throughout. */
const LIFETIME_S = 600;

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Jobs', version: '1.0.0' },
  servers: [{ url: 'https://api.jobs.example/v1' }],
  security: [{ machine: [] }],
  components: {
    securitySchemes: {
      machine: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://api.jobs.example/oauth2/token', scopes: {} } },
      },
    },
  },
  paths: {
    '/users/me': {
      get: {
        operationId: 'getMe',
        responses: {
          '200': {
            description: 'the machine client',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { id: { type: 'string' } } },
                example: { id: 'machine-1' },
              },
            },
          },
        },
      },
    },
  },
};

let clock: ManualClock;
let home: string;
let mock: MockServer;
let declared: Server;
let declaredHits: number;
let plugins: string;
let pkg: string;

/** A plugin folder as npm leaves it, holding the jobs connector (the provider's token URL written in) with the SDK and zod. */
async function pluginFolder(tokenUrl: string): Promise<void> {
  ({ plugins, pkg } = await pluginFolderWith(
    home,
    'connector-jobs',
    `import { z } from 'zod';
import { defineAction, defineConnector, oauth2ClientCredentials } from '@plugboard/sdk';
const Me = z.object({ id: z.string() }).meta({ id: 'JobsMe' });
const machines = {
  from: 'the machine client itself',
  async list(ctx) { const me = await ctx.http.get('/users/me'); return { items: [{ value: me.id, label: me.id }] }; },
};
export default defineConnector({
  key: 'jobs', name: 'Jobs', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Jobs on a provider whose machine clients get OAuth2 client credentials.',
  async check(ctx) { await ctx.http.get('/users/me'); },
  auth: oauth2ClientCredentials({ tokenUrl: '${tokenUrl}' }),
  actions: [
    defineAction({ key: 'me.get', label: 'Me', direction: 'source', entity: Me,
      input: z.object({ pages: z.number().int().min(1).max(2).optional(), machine: z.string().optional() }),
      options: { machine: machines },
      async *read(ctx, input) {
        for (let page = 0; page < (input.pages ?? 1); page += 1) {
          const me = await ctx.http.get('/users/me');
          yield { records: [{ id: me.id }] };
        }
      } }),
  ],
});
`,
  ));
}

beforeEach(async () => {
  clock = manualClock(Date.parse('2026-11-27T10:00:00Z'));
  home = await mkdtemp(join(tmpdir(), 'plugboard-client-credentials-'));
  const file = join(home, 'jobs.json');
  await writeFile(file, JSON.stringify(DOCUMENT));
  // As `PLUGBOARD_CLIENT_SECRET=... plugboard mock jobs.json --token-lifetime 600` serves it, on the test's clock.
  mock = await startMockServer(await loadOpenApiDocument(file), {
    clock,
    oauth: { clientId: CLIENT, clientSecret: SECRET, lifetimeSeconds: LIFETIME_S },
  });
  declaredHits = 0;
  declared = createServer((_request, response) => {
    declaredHits += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => declared.listen(0, '127.0.0.1', resolve));
  await pluginFolder(`http://127.0.0.1:${(declared.address() as AddressInfo).port}/oauth2/token`);
});

afterEach(async () => {
  await mock.close();
  declared.closeAllConnections();
  await new Promise<void>((resolve) => declared.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
});

const credential = (secret = SECRET) => JSON.stringify({ clientId: CLIENT, clientSecret: secret });

/** One command in process, as a person with no sign-in and the client in PLUGBOARD_CREDENTIAL runs it. */
async function cli(args: string[], secret = SECRET) {
  const io = bufferIo({ HOME: home, PLUGBOARD_CREDENTIAL: credential(secret) });
  const code = await runCli(args, { ...io.io, cwd: home }, { pack: PACK });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

const standIn = () => ['--auth-base-url', mock.oauth!.baseUrl];
const tokenRequests = () =>
  mock.requests.filter((request) => request.path === '/oauth/token').map((r) => `${r.status} ${r.operationId}`);
const apiRequests = () =>
  mock.requests.filter((request) => request.path !== '/oauth/token').map((r) => `${r.status} ${r.path}`);

describe('--auth-base-url on a client credentials connection', () => {
  it('run, record, check, options and run --plugins get their token from the stand-in, and the API takes it', async () => {
    const against = ['--base-url', mock.url, ...standIn()];
    expect(await cli(['run', 'jobs', 'me.get', '--connector', pkg, ...against])).toMatchObject({
      code: 0,
      stdout: '{"id":"machine-1"}\n',
    });
    const fixtures = join(home, 'fixtures');
    const record = ['record', 'jobs', 'me.get', '--scenario', 'me', '--fixtures', fixtures, '--connector', pkg];
    const recorded = await cli([...record, ...against]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const check = await cli(['check', 'jobs', '--connector', pkg, ...against]);
    expect([check.code, JSON.parse(check.stdout).state]).toEqual([0, 'passed']);
    const options = await cli(['options', 'jobs', 'me.get', 'machine', '--connector', pkg, ...against]);
    expect(options).toMatchObject({ code: 0, stdout: '{"value":"machine-1","label":"machine-1"}\n' });
    // An isolated plugin's token is the CLI's to get, at the stand-in all the same.
    const isolated = await cli(['run', 'jobs', 'me.get', '--plugins', plugins, ...against]);
    expect(isolated).toMatchObject({ code: 0, stdout: '{"id":"machine-1"}\n' });

    expect(tokenRequests()).toEqual(Array(5).fill('200 client_credentials'));
    expect(apiRequests()).toEqual(Array(5).fill('200 /v1/users/me'));
    expect(declaredHits).toBe(0);
    // The grant is the SDK's, not the connector's: no token request, token or secret in the fixture.
    const fixture = await readFile(join(fixtures, 'me.json'), 'utf8');
    expect(JSON.parse(fixture).outcome.records).toEqual([{ id: 'machine-1' }]);
    expect(fixture).not.toContain('/oauth/token');
    expect(fixture).not.toContain(SECRET);
    expect(fixture).not.toMatch(/at_[A-Za-z0-9_-]{20}/);
  }, 60_000);

  it('a token the stand-in counts expired meets a 401 and is replaced by a new grant, once', async () => {
    // In front of the API: the run's second request finds the stand-in's clock past the token's lifetime.
    let calls = 0;
    const front = createServer(async (request, response) => {
      calls += 1;
      if (calls === 2) await clock.advance((LIFETIME_S + 1) * 1000);
      const answer = await fetch(`${new URL(mock.url).origin}${request.url}`, {
        headers: { authorization: request.headers.authorization ?? '' },
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1`;
      const run = ['run', 'jobs', 'me.get', '--input', '{"pages":2}', '--connector', pkg, '--base-url', base];
      const ran = await cli([...run, ...standIn()]);
      expect(ran, ran.stderr).toMatchObject({ code: 0, stdout: '{"id":"machine-1"}\n{"id":"machine-1"}\n' });
    } finally {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
    expect(tokenRequests()).toEqual(['200 client_credentials', '200 client_credentials']);
    expect(apiRequests()).toEqual(['200 /v1/users/me', '401 /v1/users/me', '200 /v1/users/me']);
    expect(declaredHits).toBe(0);
  });

  it('a wrong client secret fails the run typed (invalid_client: credentials_changed, exit 4) before any API call', async () => {
    const wrong = 'not-the-secret-91f3';
    const ran = await cli(['run', 'jobs', 'me.get', '--connector', pkg, '--base-url', mock.url, ...standIn()], wrong);
    expect(ran.code).toBe(4);
    const error = JSON.parse(ran.stderr.trim().split('\n').at(-1)!) as { code: string; message: string };
    expect([error.code, error.message]).toEqual([
      'credentials_changed',
      expect.stringMatching(/token endpoint refused the client in the client credentials grant \(401\)/),
    ]);
    expect(ran.stderr).not.toContain(wrong);
    expect(tokenRequests()).toEqual(['401 client_credentials invalid_client']);
    expect(apiRequests()).toEqual([]);
    expect(declaredHits).toBe(0);
  });

  it('is refused with --environment production (exit 2) before anything is sent, by every command', async () => {
    const production = ['--environment', 'production', '--base-url', mock.url, ...standIn()];
    for (const command of [
      ['run', 'jobs', 'me.get', '--connector', pkg],
      ['record', 'jobs', 'me.get', '--scenario', 'me', '--fixtures', join(home, 'fixtures'), '--connector', pkg],
      ['check', 'jobs', '--connector', pkg],
      ['options', 'jobs', 'me.get', 'machine', '--connector', pkg],
      ['run', 'jobs', 'me.get', '--plugins', plugins],
    ]) {
      const refused = await cli([...command, ...production]);
      expect([refused.code, refused.stderr], command.join(' ')).toEqual([
        2,
        expect.stringMatching(/--auth-base-url .*sandbox only/),
      ]);
    }
    expect(mock.requests).toEqual([]);
    expect(declaredHits).toBe(0);
  }, 60_000);

  it('is refused (exit 2) for a connector with no OAuth2 scheme, or a URL neither https nor loopback http', async () => {
    const plain = await cli([
      'run',
      'jobs',
      'me.get',
      '--connector',
      pkg,
      '--auth-base-url',
      'http://auth.example.com/x',
    ]);
    expect([plain.code, plain.stderr]).toEqual([2, expect.stringMatching(/--auth-base-url .*must be https/)]);
    const bearer = await cli(['run', 'descript', 'status.get', '--auth-base-url', mock.oauth!.baseUrl]);
    expect([bearer.code, bearer.stderr]).toEqual([2, expect.stringMatching(/--auth-base-url: descript .*OAuth2/)]);
    expect(mock.requests).toEqual([]);
  });

  it("plugboard mock says how a client credentials connection gets its tokens there, never the secret's value", async () => {
    const io = bufferIo({ PLUGBOARD_CLIENT_SECRET: SECRET });
    const controller = new AbortController();
    const running = runCli(['mock', join(home, 'jobs.json'), '--connector', pkg, '--token-lifetime', '60'], io.io, {
      signal: controller.signal,
    });
    await expect.poll(() => io.stdout()).toMatch(/client credentials:/);
    controller.abort();
    expect(await running).toBe(0);
    const origin = /at (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(io.stdout())![1]!;
    expect(io.stdout()).toContain(
      `  client credentials: PLUGBOARD_CREDENTIAL='{"clientId":"plugboard-mock","clientSecret":"<PLUGBOARD_CLIENT_SECRET>"}' plugboard run jobs <action> --auth-base-url ${origin}/oauth`,
    );
    expect(io.stdout()).not.toContain(SECRET);
  });
});
