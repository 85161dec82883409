import { checkConnection } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import insurance from '../src/index.js';
import { useHarness } from './support.js';

const start = useHarness();

describe('the connection check', () => {
  it.each(['bearer', 'x-api-key'])(
    'passes with one small GET (%s), and says a changed key must be replaced',
    async (scheme) => {
      const { sim, transport } = await start();
      const check = (key: string) =>
        checkConnection(insurance, {
          connection: { id: 'conn_insurance', baseUrl: sim.url, settings: { authScheme: scheme } },
          credential: () => key,
          transport,
          log: () => undefined,
        });
      expect(await check(sim.apiKey)).toMatchObject({ connectionId: 'conn_insurance', state: 'passed' });
      const changed = await check('not-the-key-1234');
      expect(changed).toMatchObject({
        state: 'credentials_changed',
        fixHint: 'Replace the API key with a current one from Insurance quote API.',
      });
      expect(JSON.stringify(changed)).not.toContain('not-the-key-1234');
    },
  );
});
