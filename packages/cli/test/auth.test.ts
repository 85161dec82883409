import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startShopProvider } from '@plugboard/example-connector';
import { type ManualClock, manualClock } from '@plugboard/sdk/host';
import type { FaultServer } from '@plugboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OAuthRig, startOAuthRig } from '../../sdk/test/support/oauth.js';

/**
 * Signing in with the built `plugboard` binary against a real authorization server (the SDK
 * tests' OAuth rig), then `auth status`, `check` and `run` on the kept token set. Time is the
 * rig's clock: moving it on expires the access token at the provider, as an hour would.
 */

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const SHOP = fileURLToPath(new URL('../../../tools/example-connector', import.meta.url));
const HOUR = 3_600_000;

let clock: ManualClock;
let rig: OAuthRig;
let provider: FaultServer;
let state: string;
let home: string;
/** Everything the binary printed in this test, searched for secrets at the end. */
let printed: string[];

beforeEach(async () => {
  clock = manualClock(Date.now());
  rig = await startOAuthRig({ clock, accessTokenTtl: 3600 });
  const { issuer, jwksUrl, resource } = rig.auth;
  provider = await startShopProvider({ oauth: { issuer, jwksUrl, audience: resource, now: () => clock.now() } });
  home = await mkdtemp(join(tmpdir(), 'plugboard-auth-home-'));
  state = join(home, 'state');
  printed = [];
});

afterEach(async () => {
  await provider.close();
  await rig.stop();
  await rm(home, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  const { PLUGBOARD_CREDENTIAL: _none, CI: _ci, ...rest } = process.env;
  return {
    ...rest,
    HOME: home,
    XDG_STATE_HOME: join(home, 'xdg'),
    // Where every command finds the signed-in connections: the default state folder (no --state).
    PLUGBOARD_STATE: state,
    SHOP_OAUTH_ISSUER: rig.auth.issuer,
    PLUGBOARD_CLIENT_ID: rig.auth.clients.native.clientId,
  };
}

/** The binary on the shop connector package, or the connector `from` names (`auth status` takes none). */
function start(args: string[], from = ['--connector', SHOP], more: NodeJS.ProcessEnv = {}) {
  const connector = args[0] === 'auth' && args[1] === 'status' ? [] : from;
  return spawn(process.execPath, [BIN, ...args, ...connector], { env: { ...env(), ...more } });
}

async function ended(child: ReturnType<typeof spawn>, stderr = '') {
  let stdout = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  printed.push(stdout, stderr);
  return { code, stdout, stderr };
}

function cli(args: string[], from?: string[], more?: NodeJS.ProcessEnv) {
  return ended(start(args, from, more));
}

/** `auth login shop` (or `key` of `from`): the URL it prints is signed in to by the rig, whose redirect then reaches the CLI's listener. */
async function login(key = 'shop', from?: string[], more: string[] = []) {
  const result = await signIn('approve', key, from, more);
  expect(result.stderr).not.toMatch(/"level":"(warn|error)"/);
  expect(result.code).toBe(0);
  return result;
}

async function signIn(decision: 'approve' | 'deny', key = 'shop', from?: string[], more: string[] = []) {
  const child = start(['auth', 'login', key, ...more], from);
  const lines = createInterface({ input: child.stderr! });
  let seen = '';
  let url: string | undefined;
  for await (const line of lines) {
    seen += `${line}\n`;
    url = (JSON.parse(line) as { url?: string }).url;
    if (url) break;
  }
  expect(url, seen).toBeDefined();
  const redirect = await rig.auth.completeAuthorization(url!, decision);
  expect(redirect.host).toMatch(/^127\.0\.0\.1:\d+$/);
  const page = await fetch(redirect);
  expect(page.status).toBe(decision === 'approve' ? 200 : 400);
  await page.text();
  lines.close();
  return ended(child, seen);
}

/**
 * A plugin folder as npm would leave it, holding a connector on the rig (its token and authorization
 * URLs written in: a plugin's process has no environment to read them from) with the SDK and zod.
 */
async function rigPlugins(): Promise<string[]> {
  const dir = join(home, 'plugins');
  const modules = join(dir, 'node_modules');
  const own = fileURLToPath(new URL('../node_modules', import.meta.url));
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await symlink(await realpath(join(own, 'zod')), join(modules, 'zod'));
  await symlink(await realpath(join(own, '@plugboard', 'sdk')), join(modules, '@plugboard', 'sdk'));
  const pkg = join(modules, 'connector-rigged');
  await mkdir(pkg);
  const manifest = { connector: './index.js', sdk: '^0.1.0' };
  await writeFile(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'connector-rigged', version: '1.0.0', type: 'module', plugboard: manifest }),
  );
  const { tokenUrl, authorizeUrl } = rig.auth;
  await writeFile(
    join(pkg, 'index.js'),
    `import { z } from 'zod';
import { defineAction, defineConnector, oauth2AuthorizationCode } from '@plugboard/sdk';
const Me = z.object({ sub: z.string() }).meta({ id: 'RigMe' });
export default defineConnector({
  key: 'rigged', name: 'Rigged', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'OAuth2 in a plugin.',
  auth: oauth2AuthorizationCode({ tokenUrl: ${JSON.stringify(tokenUrl)}, authorizeUrl: ${JSON.stringify(authorizeUrl)}, scopes: ['items:read'] }),
  actions: [
    defineAction({ key: 'me.get', label: 'Who am I', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) { const me = await ctx.http.get('/me'); yield { records: [{ sub: me.sub ?? '' }] }; } }),
  ],
});
`,
  );
  return ['--plugins', dir];
}

/** The token set kept for the shop's default connection, as the credential store wrote it. */
async function kept() {
  const folder = join(state, 'credentials');
  const files = (await readdir(folder)).filter((name) => name.endsWith('.json'));
  expect(files).toHaveLength(1);
  const file = join(folder, files[0]!);
  const record = JSON.parse(await readFile(file, 'utf8')) as {
    value: { tokens: { accessToken: string; refreshToken: string } };
  };
  return { file, folder, tokens: record.value.tokens };
}

/** Marks the kept access token expired in the store (at the epoch's first millisecond), so the next use renews it. */
async function expireKept() {
  const { file } = await kept();
  const record = JSON.parse(await readFile(file, 'utf8')) as { value: { tokens: { expiresAt?: number } } };
  record.value.tokens.expiresAt = 1;
  await writeFile(file, `${JSON.stringify(record)}\n`);
}

/** Every file under `dir` but the credential store's token sets. */
async function filesBesidesTokens(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !(entry.parentPath === join(state, 'credentials') && entry.name.endsWith('.json')))
      found.push(path);
  }
  return found;
}

/** No token of `secrets` in anything the binary printed, nor in any file but the credential store. */
async function expectNoSecret(secrets: string[]) {
  const files = await filesBesidesTokens(home);
  expect(files.length).toBeGreaterThan(0);
  const texts = [...printed, ...(await Promise.all(files.map((file) => readFile(file, 'utf8'))))];
  for (const secret of secrets) for (const text of texts) expect(text).not.toContain(secret);
}

describe('plugboard auth login', () => {
  it('signs in through the loopback redirect and keeps the token set for its owner only', async () => {
    const { stdout } = await login();
    expect(JSON.parse(stdout)).toMatchObject({ connector: 'shop', connection: 'default', scheme: 'oauth2' });
    expect(rig.auth.counts.token.authorization_code).toBe(1);
    const { file, folder, tokens } = await kept();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect(tokens.refreshToken).toBeDefined();
    // What names the connection (no secret) is for its owner only too.
    const connections = join(state, 'connections');
    expect((await stat(connections)).mode & 0o777).toBe(0o700);
    const [named] = await readdir(connections);
    expect((await stat(join(connections, named!))).mode & 0o777).toBe(0o600);
    await expectNoSecret([tokens.accessToken, tokens.refreshToken]);
  });

  it('keeps nothing when the person denies access, and says so (exit 4, not a retry)', async () => {
    const { code, stderr } = await signIn('deny');
    expect(code).toBe(4);
    expect(stderr).toMatch(/access_denied/);
    expect(rig.auth.counts.token.authorization_code).toBe(0);
    await expect(readdir(join(state, 'connections'))).rejects.toThrow(/ENOENT/);
  });
});

describe('plugboard auth status', () => {
  it('lists the signed-in connection with its expiry and last check, and no secret', async () => {
    await login();
    const status = await cli(['auth', 'status', '--json']);
    expect(status.code).toBe(0);
    const { connections } = JSON.parse(status.stdout) as { connections: Record<string, unknown>[] };
    expect(connections).toEqual([
      expect.objectContaining({
        connector: 'shop',
        connection: 'default',
        scheme: 'oauth2',
        expiresAt: expect.stringMatching(/^\d{4}-/),
        lastCheck: null,
      }),
    ]);
    const { tokens } = await kept();
    await expectNoSecret([tokens.accessToken, tokens.refreshToken]);
  });
});

describe('plugboard check', () => {
  it('passes (exit 0) with the kept token set and prints the LiveCheck; auth status shows it', async () => {
    await login();
    const check = await cli(['check', 'shop', '--base-url', rig.api.url]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ connectionId: 'default', state: 'passed', current: true });
    const status = await cli(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ connections: [{ lastCheck: { state: 'passed' } }] });
    const { tokens } = await kept();
    await expectNoSecret([tokens.accessToken, tokens.refreshToken]);
  });

  it('is credentials_changed (exit 4) when the provider refuses the token and the refreshed one', async () => {
    await login();
    rig.api.refuse(2);
    const check = await cli(['check', 'shop', '--base-url', rig.api.url]);
    expect(JSON.parse(check.stdout)).toMatchObject({ state: 'credentials_changed', fixHint: expect.any(String) });
    expect(check.code).toBe(4);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
  });

  it('prints the expiry the store holds after it renewed the access token, as auth status does', async () => {
    await login();
    await expireKept();
    const check = await cli(['check', 'shop', '--base-url', rig.api.url]);
    expect(check.code).toBe(0);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    const status = await cli(['auth', 'status', '--json']);
    const { expiresAt } = (JSON.parse(status.stdout).connections as { expiresAt: string }[])[0]!;
    expect(JSON.parse(check.stdout)).toMatchObject({ state: 'passed', expiresAt });
  });

  it('is expired (exit 4) when the access token expired and the refresh is refused with invalid_grant', async () => {
    await login();
    await clock.advance(2 * HOUR);
    rig.auth.fault({ kind: 'invalid_grant' });
    const check = await cli(['check', 'shop', '--base-url', rig.api.url]);
    expect(JSON.parse(check.stdout)).toMatchObject({ state: 'expired' });
    expect(check.code).toBe(4);
  });
});

/**
 * Three runs on the signed-in connection, the access token expired at the provider before the
 * second: that one refreshes it once into the store, the third uses the kept set, nothing leaks.
 */
async function threeRuns(run: () => ReturnType<typeof cli>) {
  const first = await run();
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  const before = await kept();

  await clock.advance(2 * HOUR);
  const second = await run();
  expect(second.stderr).toBe('');
  expect(second.code).toBe(0);
  expect(second.stdout).toBe(first.stdout);
  expect(rig.auth.counts.token.refresh_token).toBe(1);
  const after = await kept();
  expect(after.tokens.accessToken).not.toBe(before.tokens.accessToken);
  expect(after.tokens.refreshToken).not.toBe(before.tokens.refreshToken);

  const third = await run();
  expect(third.code).toBe(0);
  expect(rig.auth.counts.token.refresh_token).toBe(1);
  expect(rig.auth.counts.refreshReuse).toBe(0);
  await expectNoSecret([before.tokens.accessToken, after.tokens.accessToken, after.tokens.refreshToken]);
  return first;
}

describe('plugboard run on a signed-in connection', () => {
  it('refreshes the expired access token once, keeps the new set, and the next run uses it', async () => {
    await login();
    const first = await threeRuns(() => cli(['run', 'shop', 'items.list', '--base-url', provider.url]));
    expect(first.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('run --plugins: the plugin runs on the kept token set, refreshed once into the store by the CLI', async () => {
    const plugins = await rigPlugins();
    await login('rigged', plugins);
    await threeRuns(() => cli(['run', 'rigged', 'me.get', '--base-url', rig.api.url], plugins));
  });
});

describe('a sign-in kept in the default state folder, commands given another --state', () => {
  it('run keeps its checkpoint in --state DIR and renews the token set where it was kept; check and auth status find it', async () => {
    await login();
    const before = await kept();
    await clock.advance(2 * HOUR);
    const other = join(home, 'run-state');
    const run = await cli(['run', 'shop', 'items.list', '--base-url', provider.url, '--state', other]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(5);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    const after = await kept();
    expect(after.tokens.refreshToken).not.toBe(before.tokens.refreshToken);
    // The checkpoint is the run's, in its folder; the sign-in stays in the default one.
    expect(await readdir(other)).toEqual(['checkpoints']);

    const elsewhere = join(home, 'check-state');
    const check = await cli(['check', 'shop', '--base-url', rig.api.url, '--state', elsewhere]);
    expect([check.code, check.stderr]).toEqual([0, '']);
    expect(JSON.parse(check.stdout)).toMatchObject({ connectionId: 'default', state: 'passed' });
    const status = await cli(['auth', 'status', '--json', '--state', elsewhere]);
    expect(JSON.parse(status.stdout)).toEqual({
      connections: [
        expect.objectContaining({
          connection: 'default',
          stateFolder: state,
          lastCheck: expect.objectContaining({ state: 'passed' }),
        }),
      ],
    });
    await expect(readdir(elsewhere)).rejects.toThrow(/ENOENT/);
    expect(rig.auth.counts.refreshReuse).toBe(0);
    await expectNoSecret([before.tokens.accessToken, after.tokens.accessToken, after.tokens.refreshToken]);
  });
});

describe('one name for the connection (--connection-id), one credential variable', () => {
  it('names it on auth login, auth status and check; --connection still does on login and check, said once', async () => {
    const { stdout } = await login('shop', undefined, ['--connection-id', 'work']);
    expect(JSON.parse(stdout)).toMatchObject({ connection: 'work' });
    const status = await cli(['auth', 'status', '--json', '--connection-id', 'work']);
    expect(JSON.parse(status.stdout)).toEqual({ connections: [expect.objectContaining({ connection: 'work' })] });
    const none = await cli(['auth', 'status', '--json', '--connection-id', 'default']);
    expect(JSON.parse(none.stdout)).toEqual({ connections: [] });

    const check = await cli(['check', 'shop', '--connection-id', 'work', '--base-url', rig.api.url]);
    expect(check.stderr).toBe('');
    expect(JSON.parse(check.stdout)).toMatchObject({ connectionId: 'work', state: 'passed' });
    const old = await cli(['check', 'shop', '--connection', 'work', '--base-url', rig.api.url]);
    expect(JSON.parse(old.stdout)).toMatchObject({ connectionId: 'work', state: 'passed' });
    const said = old.stderr.trim().split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/--connection NAME is the old spelling: use --connection-id NAME/);
    const { tokens } = await kept();
    await expectNoSecret([tokens.accessToken, tokens.refreshToken]);
  });

  it('record: an OAuth2-only connector records on its signed-in connection, the expired token renewed', async () => {
    await rigPlugins();
    const from = ['--connector', join(home, 'plugins', 'node_modules', 'connector-rigged')];
    await login('rigged', from, ['--connection-id', 'work']);
    const before = await kept();
    await clock.advance(2 * HOUR);
    const fixtures = join(home, 'fixtures');
    const args = ['record', 'rigged', 'me.get', '--scenario', 'me', '--fixtures', fixtures, '--connection-id', 'work'];
    const recorded = await cli([...args, '--base-url', rig.api.url], from);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    const fixture = JSON.parse(await readFile(join(fixtures, 'me.json'), 'utf8'));
    expect(fixture.outcome.records).toEqual([{ sub: expect.any(String) }]);
    const after = await kept();
    await expectNoSecret([before.tokens.accessToken, after.tokens.accessToken, after.tokens.refreshToken]);
  });

  it('PLUGBOARD_CREDENTIAL takes the JSON of the OAuth2 credential { clientId, tokens }', async () => {
    await login();
    const { tokens } = await kept();
    const credential = JSON.stringify({ clientId: rig.auth.clients.native.clientId, tokens });
    const args = ['run', 'shop', 'items.list', '--connection-id', 'elsewhere', '--base-url', provider.url];
    const run = await cli([...args, '--connection', '{"authScheme":"oauth2"}'], undefined, {
      PLUGBOARD_CREDENTIAL: credential,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toHaveLength(5);
    await expectNoSecret([tokens.accessToken, tokens.refreshToken]);
  });

  it("run --plugins: a credential the plugin's scheme refuses gets a hint about that scheme, not a token's", async () => {
    const plugins = await rigPlugins();
    const args = ['run', 'rigged', 'me.get', '--connection-id', 'other', '--base-url', rig.api.url];
    const run = await cli(args, plugins, { PLUGBOARD_CREDENTIAL: 'a-plain-string-credential' });
    expect(run.code).toBe(2);
    const refused = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { message: string; hint: string };
    expect(refused.message).toMatch(/must be \{ clientId, clientSecret\?, tokens/);
    expect(refused.hint).toMatch(/plugboard auth login/);
    expect(refused.hint).not.toMatch(/the token or key/);
    expect(run.stderr).not.toContain('a-plain-string-credential');
  });
});
