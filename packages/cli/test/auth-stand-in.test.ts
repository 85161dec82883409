import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type ManualClock, manualClock } from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';
import { bufferIo, pluginFolderWith } from './support.js';

/**
 * Signing in with the built `plugboard` binary at `plugboard mock`'s stand-in authorization
 * server (`auth login --auth-base-url`), then runs in process and in a plugin's own process on
 * the kept connection. The connector declares the provider's endpoints (a server here that
 * counts what reaches it: nothing may); the stand-in's time is the test's clock.
 */

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const LIFETIME_S = 600;
const CLIENT = 'plugboard-mock';

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Files', version: '1.0.0' },
  servers: [{ url: 'https://api.files.example/2.0' }],
  security: [{ oauth: [] }],
  components: { securitySchemes: { oauth: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/users/me': {
      get: {
        operationId: 'getMe',
        responses: {
          '200': {
            description: 'me',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { id: { type: 'string' } } },
                example: { id: 'user-1' },
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
let provider: Server;
let providerHits: number;
let plugins: string;
let pkg: string;

/** A plugin folder as npm leaves it, holding the files connector (its provider's endpoints written in) with the SDK and zod. */
async function pluginFolder(declared: string): Promise<void> {
  ({ plugins, pkg } = await pluginFolderWith(
    home,
    'connector-files',
    `import { z } from 'zod';
import { defineAction, defineConnector, oauth2AuthorizationCode } from '@plugboard/sdk';
const Me = z.object({ id: z.string() }).meta({ id: 'FilesMe' });
export default defineConnector({
  key: 'files', name: 'Files', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Files on a provider that signs in with OAuth2.',
  async check(ctx) { await ctx.http.get('/users/me'); },
  auth: oauth2AuthorizationCode({ tokenUrl: '${declared}/oauth2/token', authorizeUrl: '${declared}/authorize' }),
  actions: [
    defineAction({ key: 'me.get', label: 'Me', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) { const me = await ctx.http.get('/users/me'); yield { records: [{ id: me.id }] }; } }),
  ],
});
`,
  ));
}

beforeEach(async () => {
  clock = manualClock(Date.now());
  home = await mkdtemp(join(tmpdir(), 'plugboard-stand-in-'));
  const file = join(home, 'files.json');
  await writeFile(file, JSON.stringify(DOCUMENT));
  mock = await startMockServer(await loadOpenApiDocument(file), {
    clock,
    oauth: { clientId: CLIENT, lifetimeSeconds: LIFETIME_S },
  });
  providerHits = 0;
  provider = createServer((_request, response) => {
    providerHits += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  await pluginFolder(`http://127.0.0.1:${(provider.address() as AddressInfo).port}`);
});

afterEach(async () => {
  await mock.close();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
});

/** The default state folder: HOME's, as for a person who never set PLUGBOARD_STATE nor XDG_STATE_HOME. */
const defaultState = () => join(home, '.local', 'state', 'plugboard');

function env(): NodeJS.ProcessEnv {
  const { PLUGBOARD_CREDENTIAL: _none, PLUGBOARD_CLIENT_SECRET: _secret, CI: _ci, ...rest } = process.env;
  const { PLUGBOARD_STATE: _state, XDG_STATE_HOME: _xdg, ...unset } = rest;
  return { ...unset, HOME: home, PLUGBOARD_CLIENT_ID: CLIENT };
}

async function ended(child: ReturnType<typeof spawn>, stderr = '') {
  let stdout = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

const cli = (args: string[]) => ended(spawn(process.execPath, [BIN, ...args], { env: env() }));

/** `auth login files --auth-base-url`: the URL it prints is opened as a browser would, and the stand-in consents at once. */
async function login(...extra: string[]) {
  const child = spawn(
    process.execPath,
    [BIN, 'auth', 'login', 'files', '--plugins', plugins, '--auth-base-url', mock.oauth!.baseUrl, ...extra],
    { env: env() },
  );
  const lines = createInterface({ input: child.stderr! });
  let seen = '';
  let url: string | undefined;
  for await (const line of lines) {
    seen += `${line}\n`;
    url = (JSON.parse(line) as { url?: string }).url;
    if (url) break;
  }
  expect(url, seen).toMatch(new RegExp(`^${mock.oauth!.authorizeUrl}\\?`));
  const consent = await fetch(url!, { redirect: 'manual' });
  const page = await fetch(consent.headers.get('location')!);
  expect(page.status).toBe(200);
  await page.text();
  lines.close();
  return ended(child, seen);
}

/** The refresh token the default state folder's credential store holds for the connection. */
async function keptRefreshToken(): Promise<string> {
  const folder = join(defaultState(), 'credentials');
  const [file] = (await readdir(folder)).filter((name) => name.endsWith('.json'));
  return (JSON.parse(await readFile(join(folder, file!), 'utf8')) as { value: { tokens: { refreshToken: string } } })
    .value.tokens.refreshToken;
}

const tokenRequests = () =>
  mock.requests.filter((request) => request.path === '/oauth/token').map((r) => `${r.status} ${r.operationId}`);

describe('auth login --auth-base-url at plugboard mock', () => {
  it('signs in at the stand-in; runs in process and with --plugins refresh there once each, keeping the rotated token', async () => {
    const signed = await login();
    expect(signed.code, signed.stderr).toBe(0);
    expect(tokenRequests()).toEqual(['200 authorization_code']);
    const first = await keptRefreshToken();

    const inProcess = ['run', 'files', 'me.get', '--base-url', mock.url, '--connector', pkg];
    expect(await cli(inProcess)).toMatchObject({ code: 0, stdout: '{"id":"user-1"}\n' });
    await clock.advance((LIFETIME_S + 1) * 1000);
    expect(await cli(inProcess)).toMatchObject({ code: 0, stdout: '{"id":"user-1"}\n' });
    expect(tokenRequests()).toEqual(['200 authorization_code', '200 refresh_token']);
    const second = await keptRefreshToken();
    expect(second).not.toBe(first);

    await clock.advance((LIFETIME_S + 1) * 1000);
    const isolated = ['run', 'files', 'me.get', '--base-url', mock.url, '--plugins', plugins];
    expect(await cli(isolated)).toMatchObject({ code: 0, stdout: '{"id":"user-1"}\n' });
    expect(await cli(isolated)).toMatchObject({ code: 0, stdout: '{"id":"user-1"}\n' });
    expect(tokenRequests()).toEqual(['200 authorization_code', '200 refresh_token', '200 refresh_token']);
    expect(await keptRefreshToken()).not.toBe(second);

    // check refreshes at the stand-in too.
    await clock.advance((LIFETIME_S + 1) * 1000);
    const check = await cli(['check', 'files', '--base-url', mock.url, '--connector', pkg]);
    expect([check.code, JSON.parse(check.stdout).state]).toEqual([0, 'passed']);
    expect(tokenRequests()).toEqual([
      '200 authorization_code',
      '200 refresh_token',
      '200 refresh_token',
      '200 refresh_token',
    ]);
    const status = await cli(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout).connections).toEqual([
      expect.objectContaining({ connector: 'files', authBaseUrl: mock.oauth!.baseUrl }),
    ]);
    // Each expiry met the API's 401 once, then the refreshed token passed.
    expect(mock.requests.filter((request) => request.status === 401)).toHaveLength(3);
    expect(providerHits).toBe(0);

    // The stand-in belongs to the signed-in connection, never to the connector's catalogue entry.
    const out = join(home, 'catalogue');
    expect((await cli(['catalogue', '--plugins', plugins, '--out', out])).code).toBe(0);
    const written = await readdir(out, { recursive: true, withFileTypes: true });
    const texts = await Promise.all(
      written.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
    );
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain(new URL(mock.url).host);
  }, 60_000);

  it('record on a connection signed in at the stand-in (--connection-id) refreshes there, never at the provider', async () => {
    const signed = await login('--connection-id', 'work');
    expect(signed.code, signed.stderr).toBe(0);
    await clock.advance((LIFETIME_S + 1) * 1000);
    const fixtures = join(home, 'fixtures');
    const recorded = await cli([
      'record',
      'files',
      'me.get',
      '--scenario',
      'me',
      '--fixtures',
      fixtures,
      '--connection-id',
      'work',
      '--base-url',
      mock.url,
      '--connector',
      pkg,
    ]);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(tokenRequests()).toEqual(['200 authorization_code', '200 refresh_token']);
    const fixture = JSON.parse(await readFile(join(fixtures, 'me.json'), 'utf8'));
    expect(fixture.outcome.records).toEqual([{ id: 'user-1' }]);
    // The refresh at the stand-in is the SDK's, not the connector's: it stays out of the fixture.
    expect(JSON.stringify(fixture.calls)).not.toContain('/oauth/token');
    expect(providerHits).toBe(0);
  }, 30_000);

  it('a sign-in without --state is found by commands given another --state; each refresh is kept where it was found', async () => {
    const signed = await login();
    expect(signed.code, signed.stderr).toBe(0);
    const first = await keptRefreshToken();
    const expire = () => clock.advance((LIFETIME_S + 1) * 1000);
    const against = ['--base-url', mock.url, '--connector', pkg];

    // A recording's own folder for its checkpoints, as the guide's incremental pair uses.
    await expire();
    const fixtures = join(home, 'fixtures');
    const recordState = join(home, '.record-state');
    const record = ['record', 'files', 'me.get', '--scenario', 'me', '--fixtures', fixtures, '--state', recordState];
    const recorded = await cli([...record, ...against]);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(tokenRequests()).toEqual(['200 authorization_code', '200 refresh_token']);
    const second = await keptRefreshToken();
    expect(second).not.toBe(first);

    // Another folder again: the refresh goes with the rotated token (the spent one would be invalid_grant).
    await expire();
    const run = await cli(['run', 'files', 'me.get', '--state', join(home, '.run-state'), ...against]);
    expect(run).toMatchObject({ code: 0, stdout: '{"id":"user-1"}\n' });
    const third = await keptRefreshToken();
    expect(third).not.toBe(second);
    await expire();
    const isolated = ['run', 'files', 'me.get', '--plugins', plugins, '--base-url', mock.url];
    expect(await cli([...isolated, '--state', join(home, '.plugin-state')])).toMatchObject({ code: 0 });
    expect(await keptRefreshToken()).not.toBe(third);
    expect(tokenRequests()).toEqual([
      '200 authorization_code',
      '200 refresh_token',
      '200 refresh_token',
      '200 refresh_token',
    ]);
    // No token set, sign-in or lock went to the folders given: only to the default one.
    for (const folder of ['.record-state', '.run-state', '.plugin-state']) {
      const held = await readdir(join(home, folder)).catch(() => [] as string[]);
      expect(held.filter((name) => name === 'credentials' || name === 'connections')).toEqual([]);
    }
    expect(await readdir(join(defaultState(), 'credentials'))).toContain('locks');
    expect(providerHits).toBe(0);
  }, 60_000);

  it('--auth-base-url on a connection signed in at the stand-in: the same URL is taken, another refused naming both (exit 2)', async () => {
    const signed = await login();
    expect(signed.code, signed.stderr).toBe(0);
    const against = ['--base-url', mock.url, '--connector', pkg];
    const run = ['run', 'files', 'me.get', ...against];
    expect(await cli([...run, '--auth-base-url', `${mock.oauth!.baseUrl}/`])).toMatchObject({ code: 0 });
    // The provider's own server: anything sent there would be counted.
    const elsewhere = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/oauth`;
    const fixtures = join(home, 'fixtures');
    for (const command of [
      run,
      ['record', 'files', 'me.get', '--scenario', 'me', '--fixtures', fixtures, ...against],
      ['check', 'files', ...against],
      ['options', 'files', 'me.get', 'id', ...against],
      ['run', 'files', 'me.get', '--plugins', plugins, '--base-url', mock.url],
    ]) {
      const refused = await cli([...command, '--auth-base-url', elsewhere]);
      expect([refused.code, refused.stderr], command[0]).toEqual([
        2,
        expect.stringContaining(
          `--auth-base-url ${elsewhere}: connection 'default' of files was signed in at ${mock.oauth!.baseUrl}, where`,
        ),
      ]);
    }
    expect(tokenRequests()).toEqual(['200 authorization_code']);
    expect(providerHits).toBe(0);
  }, 60_000);

  it('is refused in production, or when not https nor loopback http, before anything is sent (exit 2)', async () => {
    const production = await cli([
      'auth',
      'login',
      'files',
      '--plugins',
      plugins,
      '--environment',
      'production',
      '--auth-base-url',
      mock.oauth!.baseUrl,
    ]);
    expect([production.code, production.stderr]).toEqual([2, expect.stringMatching(/--auth-base-url.*sandbox only/)]);
    const plain = await cli([
      'auth',
      'login',
      'files',
      '--plugins',
      plugins,
      '--auth-base-url',
      'http://auth.example.com/x',
    ]);
    expect([plain.code, plain.stderr]).toEqual([2, expect.stringMatching(/--auth-base-url .*must be https/)]);
    expect(mock.requests).toEqual([]);
    expect(providerHits).toBe(0);
  });

  it("plugboard mock in a connector's folder not built yet serves the API without the stand-in, and says so", async () => {
    const unbuilt = join(home, 'unbuilt');
    await mkdir(unbuilt);
    const manifest = { connector: './dist/index.js', sdk: '^0.1.0' };
    await writeFile(
      join(unbuilt, 'package.json'),
      JSON.stringify({ name: 'connector-files', version: '0.0.0', type: 'module', plugboard: manifest }),
    );
    const io = bufferIo();
    const controller = new AbortController();
    const running = runCli(
      ['mock', join(home, 'files.json'), '--port', '0'],
      { ...io.io, cwd: unbuilt },
      {
        signal: controller.signal,
      },
    );
    await expect.poll(() => io.stdout(), { timeout: 10_000 }).toMatch(/ at http:\/\/127\.0\.0\.1:\d+/);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.stdout()).not.toContain('OAuth2 stand-in');
    expect(io.stderr()).toMatch(/without a stand-in authorization server: this folder's connector did not load/);
    // Asked for the stand-in's options, the folder's connector must load.
    const asked = bufferIo();
    const refused = await runCli(['mock', join(home, 'files.json'), '--port', '0', '--token-lifetime', '60'], {
      ...asked.io,
      cwd: unbuilt,
    });
    expect(refused).not.toBe(0);
  });

  it('plugboard mock prints where the authorize and token endpoints are and how to sign in', async () => {
    const io = bufferIo();
    const controller = new AbortController();
    const file = join(home, 'files.json');
    const running = runCli(['mock', file, '--connector', pkg, '--token-lifetime', '60'], io.io, {
      signal: controller.signal,
    });
    await expect.poll(() => io.stdout()).toMatch(/sign in:/);
    controller.abort();
    expect(await running).toBe(0);
    const origin = /at (http:\/\/127\.0\.0\.1:\d+)\/2\.0/.exec(io.stdout())![1]!;
    expect(io.stdout()).toContain(
      `OAuth2 stand-in for scheme oauth2_authorization_code: authorize ${origin}/oauth/authorize, token ${origin}/oauth/token; client plugboard-mock (public, PKCE); access tokens last 60 s`,
    );
    expect(io.stdout()).toContain(
      `sign in: PLUGBOARD_CLIENT_ID=plugboard-mock plugboard auth login files --auth-base-url ${origin}/oauth`,
    );
  });
});
