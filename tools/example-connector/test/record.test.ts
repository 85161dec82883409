import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { credentialSecrets } from '@plugboard/sdk/host';
import { defineScenario, type RecordResult, recordScenario, type Scenario } from '@plugboard/testing';
import { describe, expect, it } from 'vitest';
import { startOAuthRig } from '../../../packages/sdk/test/support/oauth.js';
import { shop } from '../src/connector.js';
import { items, startShopProvider } from '../src/provider.js';
import { FIXTURES_DIR, OAUTH_CONNECTION } from './scenarios.js';
import { signIn } from './sign-in.js';

/**
 * Re-records test/fixtures: every action of the shop, its connection signed in with OAuth2
 * (the authorization code grant with PKCE, through the rig's authorization server) against
 * the provider in OAuth mode, which accepts only the rig's access tokens. The token set lasts
 * an hour, so nothing is refreshed while recording. Off by default so CI only replays:
 *
 *   PLUGBOARD_RECORD=1 pnpm exec vitest run tools/example-connector/test/record.test.ts
 */

const scenario = (fields: Omit<Scenario, 'connection'>) => defineScenario({ ...fields, connection: OAUTH_CONNECTION });

describe.runIf(process.env.PLUGBOARD_RECORD === '1')('recording the shop fixtures with an OAuth2 connection', () => {
  it('records every action with a signed-in token set, and no token reaches a fixture', async () => {
    const rig = await startOAuthRig({ accessTokenTtl: 3600 });
    // Three items at first; two more arrive before the second incremental run.
    const all = items(5);
    const listed = all.slice(0, 3);
    const { issuer, jwksUrl, resource } = rig.auth;
    const provider = await startShopProvider({ items: listed, oauth: { issuer, jwksUrl, audience: resource } });
    try {
      const tokens = await signIn(rig, shop);
      expect(tokens.refreshToken).toBeDefined();
      const credential = { clientId: rig.auth.clients.native.clientId, tokens };
      for (const file of readdirSync(FIXTURES_DIR).filter((name) => name.endsWith('.json')))
        rmSync(join(FIXTURES_DIR, file));
      const record = (recorded: Scenario) =>
        recordScenario({
          connector: shop,
          scenario: recorded,
          fixturesDir: FIXTURES_DIR,
          baseUrl: provider.url,
          credential: () => credential,
        });
      const results: RecordResult[] = [];
      const first = await record(scenario({ name: 'items-first', action: 'items.list', input: { limit: 2 } }));
      results.push(first);
      listed.push(...all.slice(3));
      const { checkpoint } = first.fixture.outcome as { checkpoint: unknown };
      results.push(
        await record(scenario({ name: 'items-after', action: 'items.list', input: { limit: 2 }, checkpoint })),
        await record(
          scenario({ name: 'orders-create', action: 'orders.create', input: { sku: 'sku_1', quantity: 2 } }),
        ),
        await record(
          scenario({
            name: 'refunds-create',
            action: 'refunds.create',
            input: { order_id: 'ord_1' },
            approvedBy: 'shop-reviewer',
          }),
        ),
        await record(scenario({ name: 'quotes-create', action: 'quotes.create', input: { sku: 'sku_1' } })),
        await record(scenario({ name: 'jobs-run', action: 'jobs.run', input: { steps: 2 } })),
      );
      // Every run was authorized by the rig's token: a refused one would have failed its recording.
      expect(
        provider.requests.every((request) => request.headers.authorization === `Bearer ${tokens.accessToken}`),
      ).toBe(true);
      expect(rig.auth.counts.token.refresh_token).toBe(0);
      for (const result of results) {
        expect(result.written).toBe(true);
        for (const secret of credentialSecrets(credential)) expect(result.text).not.toContain(secret);
      }
    } finally {
      await provider.close();
      await rig.stop();
    }
  }, 120_000);
});
