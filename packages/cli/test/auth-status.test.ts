import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { connectorCredentials, keepTokens, writeKept } from '../src/kept-connections.js';
import { bufferIo } from './support.js';

/** `plugboard auth status` for a person at a terminal: one line per signed-in connection, never a token. */

const ACCESS = 'access-token-5f0c2e9a7b31';
const REFRESH = 'refresh-token-8d2b6c4e1a90';
let state: string;
beforeEach(async () => {
  state = await mkdtemp(join(tmpdir(), 'plugboard-status-'));
});
afterEach(async () => {
  await rm(state, { recursive: true, force: true });
});

function terminal(env: Record<string, string> = {}) {
  const buffers = bufferIo(env, true);
  return { ...buffers, io: { ...buffers.io, stdout: { ...buffers.io.stdout, isTTY: true } } };
}

describe('plugboard auth status at a terminal', () => {
  it('says when nothing is signed in', async () => {
    const { io, stdout } = terminal();
    expect(await runCli(['auth', 'status', '--state', state], io)).toBe(0);
    expect(stdout()).toMatch(/^No connection signed in .*plugboard auth login <connector>/);
  });

  it('lists each connection by connector and name, with its scheme, expiry and last check', async () => {
    const expiresAt = Date.UTC(2026, 10, 26, 12);
    const shop = await connectorCredentials(state, 'shop');
    await keepTokens(shop, 'work', { accessToken: ACCESS, refreshToken: REFRESH, expiresAt });
    await writeKept(state, {
      connector: 'shop',
      connection: 'work',
      scheme: 'oauth2',
      clientId: 'client-1',
      signedInAt: '2026-11-26T11:00:00.000Z',
      lastCheck: { state: 'passed', checkedAt: '2026-11-26T11:05:00.000Z' },
    });
    await keepTokens(await connectorCredentials(state, 'acme'), 'default', { accessToken: `${ACCESS}-2` });
    await writeKept(state, {
      connector: 'acme',
      connection: 'default',
      scheme: 'oauth2_authorization_code',
      clientId: 'client-2',
      signedInAt: '2026-11-26T10:00:00.000Z',
    });
    const { io, stdout } = terminal();
    expect(await runCli(['auth', 'status', '--state', state], io)).toBe(0);
    expect(stdout()).toBe(
      [
        'acme  default  oauth2_authorization_code  no known expiry  never checked',
        'shop  work  oauth2  expires 2026-11-26T12:00:00.000Z (renewed as used)  last check passed at 2026-11-26T11:05:00.000Z',
        '',
      ].join('\n'),
    );
    expect(stdout()).not.toContain('token-');
  });

  it('with --state DIR, lists its sign-ins, then those of the default state folder it does not hold, saying where', async () => {
    const given = join(state, 'given');
    const fallback = join(state, 'default');
    const keep = async (dir: string, connector: string, clientId: string) => {
      await keepTokens(await connectorCredentials(dir, connector), 'default', { accessToken: `${ACCESS}-${clientId}` });
      await writeKept(dir, {
        connector,
        connection: 'default',
        scheme: 'oauth2',
        clientId,
        signedInAt: '2026-11-26T10:00:00.000Z',
      });
    };
    await keep(given, 'acme', 'client-given');
    await keep(fallback, 'acme', 'client-default');
    await keep(fallback, 'shop', 'client-shop');
    const { io, stdout } = terminal({ PLUGBOARD_STATE: fallback });
    expect(await runCli(['auth', 'status', '--state', given], io)).toBe(0);
    expect(stdout()).toBe(
      [
        'acme  default  oauth2  no known expiry  never checked',
        `shop  default  oauth2  no known expiry  never checked  kept in ${fallback}`,
        '',
      ].join('\n'),
    );
    const json = bufferIo({ PLUGBOARD_STATE: fallback });
    expect(await runCli(['auth', 'status', '--json', '--state', given], json.io)).toBe(0);
    expect(JSON.parse(json.stdout()).connections).toEqual([
      expect.objectContaining({ connector: 'acme', clientId: 'client-given', stateFolder: given }),
      expect.objectContaining({ connector: 'shop', clientId: 'client-shop', stateFolder: fallback }),
    ]);

    const none = terminal({ PLUGBOARD_STATE: join(state, 'empty') });
    expect(await runCli(['auth', 'status', '--state', join(state, 'nothing')], none.io)).toBe(0);
    expect(none.stdout()).toBe(
      `No connection signed in (state folder ${join(state, 'nothing')}, then ${join(state, 'empty')}); sign in with plugboard auth login <connector>.\n`,
    );
  });
});
