import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startWorker, submitRun } from '../src/index.js';
import { rigConnector, signedIn } from '../../sdk/test/support/oauth-connector.js';
import { startOAuthRig } from '../../sdk/test/support/oauth.js';
import { fleet } from './support/fleet.js';

const state = fleet();

describe("the worker's /metrics", () => {
  it('counts a token refresh as the authorization server counted it', async () => {
    const rig = await startOAuthRig({ accessTokenTtl: 600 });
    const connector = rigConnector(rig, 'code');
    // Signed in, and its access token taken as expired: the run refreshes it before its call.
    const tokens = { ...(await signedIn(rig, Date.now())), expiresAt: 0 };
    const running = await startWorker({
      redis: state.redis.url,
      postgres: state.db.url,
      connectors: [connector],
      concurrency: 1,
      resolveCredential: () => ({ clientId: rig.auth.clients.native.clientId, tokens }),
      credentialKey: randomBytes(32),
      metricsPort: 0,
      metricsHost: '127.0.0.1',
    });
    try {
      const done = await submitRun({
        redis: state.redis.url,
        postgres: state.db.url,
        connectors: [connector],
        connector: 'rigged',
        action: 'me.get',
        connection: { id: 'conn-oauth', baseUrl: rig.api.url },
        follow: {},
      });
      expect(done.run?.status).toBe('succeeded');
      expect(rig.auth.counts.token.refresh_token).toBe(1);
      const metrics = await (await fetch(running.metricsUrl!)).text();
      expect(metrics).toMatch(/^plugboard_token_refreshes_total 1$/m);
    } finally {
      await running.close();
      await rig.stop();
    }
  });
});
