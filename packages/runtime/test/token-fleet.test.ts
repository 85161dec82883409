import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '@plugboard/sdk/host';
// The SDK's own test rigs: a real authorization server and Redis.
import { type OAuthRig, startOAuthRig } from '../../sdk/test/support/oauth.js';
import { revokedGrant, signedIn } from '../../sdk/test/support/oauth-connector.js';
import { type RedisServer, startRedis } from '../../sdk/test/support/redis.js';
import { fileCredentialStore } from '../src/index.js';

/**
 * The token lifecycle across processes: four processes of the built SDK and runtime share one connection's
 * token set (the runtime's file credential store) and refresh it through a Redis lease or a
 * lock file. The rig's clock stands still, so the refreshed tokens stay valid at the resource
 * server; the stored set has expired on every process's clock.
 */

const CHILD = fileURLToPath(new URL('./support/token-child.mjs', import.meta.url));

let redis: RedisServer | undefined;
let skipReason = '';
let rig: OAuthRig;
let dir: string;

beforeAll(async () => {
  const result = await startRedis();
  if (result.server) redis = result.server;
  else skipReason = result.reason;
});

afterAll(async () => {
  await redis?.stop();
});

beforeEach(async () => {
  rig = await startOAuthRig({ clock: manualClock(Date.now()), accessTokenTtl: 600 });
  dir = await mkdtemp(join(tmpdir(), 'plugboard-tokens-'));
});

afterEach(async () => {
  await rig.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The signed-in set in the store (of a grant since revoked), already expired. */
async function seedExpired(grant = signedIn) {
  const tokens = { ...(await grant(rig, Date.now())), expiresAt: 0 };
  expect(await fileCredentialStore(dir).compareAndSet('conn-1', undefined, tokens)).toBe(true);
  return tokens;
}

interface ChildResult {
  ok: number;
  errors: string[];
}

function start(extra: Record<string, unknown>): {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<ChildResult>;
} {
  const settings = {
    tokenUrl: rig.auth.tokenUrl,
    authorizeUrl: rig.auth.authorizeUrl,
    apiUrl: rig.api.url,
    clientId: rig.auth.clients.native.clientId,
    storeDir: dir,
    calls: 50,
    ...extra,
  };
  const child = spawn(process.execPath, [CHILD, JSON.stringify(settings)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let readied: () => void;
  const ready = new Promise<void>((resolve) => (readied = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.startsWith('ready\n')) readied();
  });
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      const line = stdout.split('\n').find((text) => text.startsWith('{'));
      if (code !== 0 || !line)
        return reject(new Error(`the child exited with ${code ?? signal}\n${stdout}\n${stderr}`));
      resolve(JSON.parse(line) as ChildResult);
    });
  });
  return { child, ready, result };
}

/** Four processes, 50 calls each, let go at once. */
async function fleet(extra: Record<string, unknown>): Promise<ChildResult[]> {
  const children = Array.from({ length: 4 }, () => start(extra));
  await Promise.all(children.map((one) => one.ready));
  for (const { child } of children) child.stdin!.write('go\n');
  return Promise.all(children.map((one) => one.result));
}

/** One process, let go once it is ready. */
async function alone(extra: Record<string, unknown>): Promise<ChildResult> {
  const one = start(extra);
  await one.ready;
  one.child.stdin!.write('go\n');
  return one.result;
}

describe('single flight across processes', () => {
  it('4 processes sharing Redis: one refresh, no failed call', async (context) => {
    if (!redis) return context.skip(skipReason);
    const tokens = await seedExpired();
    const results = await fleet({ redis: redis.url });
    expect(results.flatMap((result) => result.errors)).toEqual([]);
    expect(results.reduce((sum, result) => sum + result.ok, 0)).toBe(200);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
    const stored = await fileCredentialStore(dir).read('conn-1');
    expect(stored?.version).toBe(2);
    expect(stored?.tokens.refreshToken).not.toBe(tokens.refreshToken);
  }, 30_000);

  it('4 processes with the lock file: one refresh, no failed call', async () => {
    await seedExpired();
    const results = await fleet({ lockFolder: join(dir, 'locks') });
    expect(results.flatMap((result) => result.errors)).toEqual([]);
    expect(results.reduce((sum, result) => sum + result.ok, 0)).toBe(200);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
  }, 30_000);

  it('a process killed right after the token endpoint answered leaves the old set or the new one, whole', async () => {
    const tokens = await seedExpired();
    const doomed = start({ calls: 1 });
    await doomed.ready;
    const answered = new Promise<void>((resolve) =>
      rig.auth.onTokenAnswer(() => {
        doomed.child.kill('SIGKILL');
        resolve();
      }),
    );
    doomed.child.stdin!.write('go\n');
    await answered;
    await doomed.result.catch(() => undefined);
    const stored = await fileCredentialStore(dir).read('conn-1');
    if (stored?.version === 1) expect(stored.tokens).toEqual(tokens);
    else {
      expect(stored?.version).toBe(2);
      expect(Object.keys(stored!.tokens).sort()).toEqual(['accessToken', 'expiresAt', 'refreshToken', 'tokenType']);
    }
    expect(rig.auth.counts.token.refresh_token).toBe(1);
  }, 30_000);
});

describe('a refresh token the provider refused', () => {
  it('4 processes with the lock file on a revoked grant: sent once, every call fails credentials_expired; a later process sends nothing; a new set is refreshed again', async () => {
    await seedExpired(revokedGrant);
    const before = rig.auth.counts.token.refresh_token;
    const lockFolder = join(dir, 'locks');
    const results = await fleet({ lockFolder });
    expect(results.flatMap((result) => result.errors)).toEqual(
      Array.from({ length: 200 }, () => 'credentials_expired'),
    );
    expect(rig.auth.counts.token.refresh_token).toBe(before + 1);

    expect(await alone({ lockFolder, calls: 5 })).toMatchObject({
      ok: 0,
      errors: Array.from({ length: 5 }, () => 'credentials_expired'),
    });
    expect(rig.auth.counts.token.refresh_token).toBe(before + 1);

    // As `plugboard auth login` writes a new sign-in over the stored set.
    const store = fileCredentialStore(dir);
    const signed = { ...(await signedIn(rig, Date.now())), expiresAt: 0 };
    expect(await store.compareAndSet('conn-1', await store.read('conn-1'), signed)).toBe(true);
    expect(await alone({ lockFolder, calls: 5 })).toMatchObject({ ok: 5, errors: [] });
    expect(rig.auth.counts.token.refresh_token).toBe(before + 2);
  }, 30_000);
});
