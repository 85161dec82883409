import { items, shop, startShopProvider } from '@plugboard/example-connector';
import { defineConnector } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, TOKEN } from './support.js';

/**
 * PLUGBOARD_CREDENTIAL as every command that runs an action reads it: a plain key, or the JSON of
 * the scheme's credential; refused naming the part (never its value) before anything is sent.
 */

let server: FaultServer;
beforeEach(async () => {
  server = await startShopProvider({ items: items(3), token: TOKEN });
});
afterEach(async () => {
  await server.close();
});

const { auth: shopSchemes, action: _lookup, ...definition } = shop;
/** The shop signing in with OAuth2 only. */
const signedShop = defineConnector({ ...definition, key: 'signed', name: 'Signed', auth: shopSchemes.slice(1) });
const pack = new Map([
  ['shop', shop],
  ['signed', signedShop],
]);

function run(key: string, credential: string | undefined, ...more: string[]) {
  const buffers = bufferIo(credential === undefined ? {} : { PLUGBOARD_CREDENTIAL: credential });
  const code = runCli(['run', key, 'items.list', '--base-url', server.url, ...more], buffers.io, { pack });
  return { code, ...buffers };
}

describe('PLUGBOARD_CREDENTIAL', () => {
  it("takes a plain key, or the JSON of a key scheme's credential { key, expiresAt? }", async () => {
    for (const credential of [TOKEN, JSON.stringify({ key: TOKEN }), ` ${JSON.stringify({ key: TOKEN })}\n`]) {
      const plain = run('shop', credential);
      expect(await plain.code).toBe(0);
      expect(plain.stdout().trim().split('\n')).toHaveLength(3);
    }
  });

  it.each([
    ['{"key":', /PLUGBOARD_CREDENTIAL begins with \{ but is not JSON/],
    ['{"username":"someone","password":"hunter2-hunter2"}', /PLUGBOARD_CREDENTIAL.*needs key/],
    ['["a-key-in-an-array"]', /PLUGBOARD_CREDENTIAL begins with \[/],
  ])('refuses %s naming the part, never its value, before any request (exit 2)', async (credential, message) => {
    const refused = run('shop', credential);
    expect(await refused.code).toBe(2);
    const error = JSON.parse(refused.stderr()) as { code: string; message: string; hint: string };
    expect(error).toMatchObject({ code: 'invalid_connection', message: expect.stringMatching(message) });
    expect(refused.stderr()).not.toMatch(/hunter2|a-key-in-an-array/);
    expect(server.requests).toEqual([]);
  });

  it("says what the connector's scheme needs when it is missing", async () => {
    const bearer = run('shop', undefined);
    expect(await bearer.code).toBe(2);
    expect(JSON.parse(bearer.stderr()).hint).toMatch(/PLUGBOARD_CREDENTIAL=<the token>/);

    const oauth2 = run('signed', undefined);
    expect(await oauth2.code).toBe(2);
    const { hint } = JSON.parse(oauth2.stderr()) as { hint: string };
    expect(hint).toMatch(/plugboard auth login signed --connection-id default/);
    expect(hint).toMatch(/\{"clientId":.*"tokens":\{"accessToken"/);
    expect(hint).not.toMatch(/the token or key/);

    const picked = run('shop', undefined, '--connection', '{"authScheme":"oauth2"}');
    expect(await picked.code).toBe(2);
    expect(JSON.parse(picked.stderr()).hint).toMatch(/auth login shop/);
    expect(server.requests).toEqual([]);
  });
});
