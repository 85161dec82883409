import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shop, startShopProvider } from '@plugboard/example-connector';
import { bearerToken, defineConnector } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, TOKEN } from './support.js';

/** `plugboard check` and `auth login` on a connection with a key from PLUGBOARD_CREDENTIAL, and what they refuse. */

let server: FaultServer;
let state: string;
beforeEach(async () => {
  server = await startShopProvider({ token: TOKEN });
  state = await mkdtemp(join(tmpdir(), 'plugboard-check-'));
});
afterEach(async () => {
  await server.close();
  await rm(state, { recursive: true, force: true });
});

const { action: _lookup, check: _check, ...definition } = shop;
/** The shop without a connection check, and with a bearer token only. */
const unchecked = defineConnector({ ...definition, key: 'unchecked', name: 'Unchecked', auth: bearerToken() });
const pack = new Map([
  ['shop', shop],
  ['unchecked', unchecked],
]);

describe('plugboard check with PLUGBOARD_CREDENTIAL', () => {
  it('prints the LiveCheck and exits 0 when it passed, 4 when the provider refused the key', async () => {
    const passed = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['check', 'shop', '--base-url', server.url, '--state', state], passed.io, { pack })).toBe(0);
    expect(JSON.parse(passed.stdout())).toMatchObject({ connectionId: 'default', state: 'passed' });

    const refused = bufferIo({ PLUGBOARD_CREDENTIAL: 'not-the-key-1234' });
    const args = ['check', 'shop', '--connection', 'work', '--base-url', server.url, '--state', state];
    expect(await runCli(args, refused.io, { pack })).toBe(4);
    expect(JSON.parse(refused.stdout())).toMatchObject({
      connectionId: 'work',
      state: 'credentials_changed',
      fixHint: 'Replace the API key with a current one from Shop.',
    });
    expect(refused.stdout()).not.toContain('not-the-key-1234');
  });

  it('exits 1 (retry) when the provider could not be reached, and 4 when it answered 403', async () => {
    const args = ['check', 'shop', '--base-url', server.url, '--state', state];
    server.reset();
    const down = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(args, down.io, { pack })).toBe(1);
    expect(JSON.parse(down.stdout())).toMatchObject({ state: 'failed' });

    server.answer({ status: 403, body: { error: 'forbidden' } });
    const forbidden = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(args, forbidden.io, { pack })).toBe(4);
    expect(JSON.parse(forbidden.stdout())).toMatchObject({ state: 'failed' });
  });

  it('exits 2 with not_checked for a connector without a check, sending nothing', async () => {
    const { io, stdout } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['check', 'unchecked', '--base-url', server.url], io, { pack })).toBe(2);
    expect(JSON.parse(stdout())).toMatchObject({ state: 'not_checked', checkedAt: null });
    expect(server.requests).toEqual([]);
  });
});

describe('plugboard auth login refuses before listening or sending', () => {
  it.each([
    [['auth', 'login', 'shop'], {}, /--client-id ID, or PLUGBOARD_CLIENT_ID/],
    [['auth', 'login', 'shop', '--connection', '../x'], { PLUGBOARD_CLIENT_ID: 'c' }, /--connection \.\.\/x/],
    [['auth', 'login', 'shop', '--connection-id', '../x'], { PLUGBOARD_CLIENT_ID: 'c' }, /--connection-id \.\.\/x/],
    [
      ['auth', 'login', 'shop', '--connection-id', 'a', '--connection', 'b'],
      { PLUGBOARD_CLIENT_ID: 'c' },
      /give --connection-id only/,
    ],
    [['auth', 'login', 'shop', '--scheme', 'bearer'], { PLUGBOARD_CLIENT_ID: 'c' }, /--scheme bearer: no such sign-in/],
    [['auth', 'login', 'unchecked'], { PLUGBOARD_CLIENT_ID: 'c' }, /unchecked has no sign-in/],
  ])('%j', async (argv, env, message) => {
    const { io, stderr, stdout } = bufferIo(env);
    expect(await runCli([...argv, '--state', state], io, { pack })).toBe(2);
    expect(JSON.parse(stderr()).message).toMatch(message);
    expect(stdout()).toBe('');
  });
});
