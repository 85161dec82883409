import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createExecutor,
  createHostTransport,
  type ManualClock,
  manualClock,
  memoryCredentialStore,
} from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// The SDK's own test rig: a real authorization server that rotates refresh tokens, and a resource server.
import { type OAuthRig, startOAuthRig } from '../../sdk/test/support/oauth.js';
import { signedIn } from '../../sdk/test/support/oauth-connector.js';
import { startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/**
 * An isolated plugin whose connector declares the provider's token URL, on a connection whose
 * `authBaseUrl` points at a stand-in: the host keeps the token lifecycle, so its refreshes go to
 * the stand-in (the plugin's process has an empty environment and no say in it).
 */

let rig: OAuthRig;
let folder: PluginFolder;
let clock: ManualClock;
let provider: Server;
let providerHits = 0;

function entry(declared: string): string {
  return `
import { z } from 'zod';
import { defineAction, defineConnector, oauth2AuthorizationCode } from '@plugboard/sdk';
const Me = z.object({ sub: z.string() }).meta({ id: 'RigMe' });
export default defineConnector({
  key: 'rigged', name: 'Rigged', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'OAuth2 in a plugin.',
  auth: oauth2AuthorizationCode({ tokenUrl: '${declared}/oauth/token', authorizeUrl: '${declared}/oauth/authorize', scopes: ['items:read'] }),
  actions: [
    defineAction({ key: 'me.get', label: 'Who am I', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) { const me = await ctx.http.get('/me'); yield { records: [{ sub: me.sub ?? '' }] }; } }),
  ],
});
`;
}

beforeAll(async () => {
  clock = manualClock(Date.now());
  rig = await startOAuthRig({ clock, accessTokenTtl: 600 });
  provider = createServer((_request, response) => {
    providerHits += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const declared = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  folder = await npmFolder([{ name: 'connector-rigged', entry: entry(declared) }]);
});
afterAll(async () => {
  await folder?.cleanup();
  await rig?.stop();
  provider?.closeAllConnections();
  await new Promise<void>((resolve) => provider?.close(() => resolve()));
});

describe('authBaseUrl on an isolated plugin', () => {
  test("the host's refresh goes to the stand-in, none to the declared token URL", async () => {
    const store = memoryCredentialStore();
    const seeded = { ...(await signedIn(rig, clock.now())), expiresAt: 0 };
    expect(await store.compareAndSet('conn-1', undefined, seeded)).toBe(true);
    const plugin = await startPlugin({ dir: join(folder.modules, 'connector-rigged') }, { allow: ['127.0.0.0/8'] });
    const transport = createHostTransport({ clock, network: { allow: ['127.0.0.0/8'] }, credentials: { store } });
    try {
      const executor = createExecutor({
        plugins: [{ package: plugin.package, runner: plugin.runner }],
        resolveConnection: (id) => ({ id, baseUrl: rig.api.url, authBaseUrl: rig.auth.issuer }),
        resolveCredential: async () => ({
          clientId: rig.auth.clients.native.clientId,
          tokens: (await store.read('conn-1'))!.tokens,
        }),
        transport,
        clock,
        retry: { retries: 0 },
      });
      const records: unknown[] = [];
      await executor.execute({
        connectorKey: 'rigged',
        action: 'me.get',
        connectionId: 'conn-1',
        onPage: (page) => void records.push(...page.records),
      });
      expect(records).toEqual([{ sub: expect.any(String) }]);
      expect(rig.auth.counts.token.refresh_token).toBe(1);
      expect(providerHits).toBe(0);
      expect((await store.read('conn-1'))?.tokens.refreshToken).not.toBe(seeded.refreshToken);
    } finally {
      await plugin.close();
      await transport.close();
    }
  }, 30_000);
});
