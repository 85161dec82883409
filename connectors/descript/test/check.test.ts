import { checkConnection } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import { useHarness } from './support.js';

const start = useHarness();

describe('the connection check', () => {
  it('passes with one GET /status, and says a changed token must be replaced', async () => {
    const { sim, connector, transport, requestsTo } = await start();
    const check = (token: string) =>
      checkConnection(connector, {
        connection: { id: 'conn_descript', baseUrl: sim.url },
        credential: () => token,
        transport,
        log: () => undefined,
      });
    expect(await check(sim.token)).toMatchObject({ connectionId: 'conn_descript', state: 'passed', current: true });
    expect(requestsTo('/status')).toHaveLength(1);
    const changed = await check('not-the-token-1234');
    expect(changed).toMatchObject({
      state: 'credentials_changed',
      fixHint: 'Replace the API key with a current one from Descript.',
    });
    expect(JSON.stringify(changed)).not.toContain('not-the-token-1234');
    expect(sim.requests.map((request) => request.path)).toEqual(['/status', '/status']);
  });
});
