import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialSecrets } from '@plugboard/sdk/host';
import { defineScenario, recordScenario, replayScenario } from '@plugboard/testing';
import { expect, it } from 'vitest';
import { startOAuthRig } from '../../../packages/sdk/test/support/oauth.js';
import { shopAt } from '../src/connector.js';
import { items, startShopProvider } from '../src/provider.js';
import { OAUTH_CONNECTION } from './scenarios.js';
import { signIn } from './sign-in.js';

/**
 * A fixture holds the provider's API calls only: an access token that expired before the
 * recording is refreshed at the authorization server during it, and neither that request nor
 * its answer (new tokens, even redacted) is written. The fixture replays with the network
 * closed and the servers gone, on replay's token set that never needs a token endpoint.
 */
it('records an OAuth2 run that refreshed its token without the token request, and replays it offline', async () => {
  const rig = await startOAuthRig({ accessTokenTtl: 3600 });
  const { issuer, jwksUrl, resource, tokenUrl } = rig.auth;
  const provider = await startShopProvider({ items: items(3), oauth: { issuer, jwksUrl, audience: resource } });
  const fixturesDir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-refresh-fixtures-')));
  const shop = shopAt(issuer);
  const scenario = defineScenario({
    name: 'items-refreshed',
    action: 'items.list',
    input: { limit: 2 },
    connection: OAUTH_CONNECTION,
  });
  try {
    const signedIn = await signIn(rig, shop);
    // Expired since the epoch: the SDK refreshes before the first request, whatever the time.
    const credential = { clientId: rig.auth.clients.native.clientId, tokens: { ...signedIn, expiresAt: 0 } };
    const recorded = await recordScenario({
      connector: shop,
      scenario,
      fixturesDir,
      baseUrl: provider.url,
      credential: () => credential,
    });
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(provider.requests.length).toBe(2);
    expect(recorded.fixture.calls.map((call) => call.request.path)).toEqual([
      '/items?limit=2',
      '/items?limit=2&cursor=item_003',
    ]);
    expect(recorded.fixture.calls.some((call) => call.origin !== undefined)).toBe(false);
    const tokenPath = new URL(tokenUrl).pathname;
    for (const text of [tokenPath, new URL(issuer).host, 'refresh_token', 'token_type', 'grant_type'])
      expect(recorded.text).not.toContain(text);
    for (const secret of credentialSecrets(credential)) expect(recorded.text).not.toContain(secret);
    // The refreshed access token, which only the token answer and the API requests carried, is a JWT.
    expect(recorded.text).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/);
  } finally {
    await provider.close();
    await rig.stop();
  }
  try {
    // Both servers are stopped: the replay reaches neither an API nor a token endpoint.
    const replayed = await replayScenario({ connector: shop, scenario: scenario.name, fixturesDir });
    expect(replayed.error).toBeUndefined();
    expect(replayed.calls).toBe(2);
    expect(replayed.records).toEqual(items(3));
  } finally {
    await rm(fixturesDir, { recursive: true, force: true });
  }
}, 60_000);
