import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { recordScenario } from '@plugboard/testing';
import { describe, expect, it } from 'vitest';
import insurance from '../src/index.js';
import { FIXTURES_DIR, RECORDED } from './scenarios.js';

/**
 * Re-records test/fixtures from the simulator, in order (creates before lists). Off by
 * default so CI only replays; run it on purpose:
 *
 *   PLUGBOARD_RECORD=1 pnpm exec vitest run connectors/insurance/test/record.test.ts
 */
describe.runIf(process.env.PLUGBOARD_RECORD === '1')('recording the insurance fixtures from the simulator', () => {
  it('records every scenario', async () => {
    const sim = await startInsuranceSimulator({ port: 0 });
    try {
      for (const { scenario, setup } of RECORDED) {
        await setup?.(sim);
        const result = await recordScenario({
          connector: insurance,
          scenario,
          fixturesDir: FIXTURES_DIR,
          baseUrl: sim.url,
          credential: sim.apiKey,
          retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 },
        });
        expect(result.written).toBe(true);
        expect(result.text).not.toContain(sim.apiKey);
        expect(sim.pendingFailures()).toBe(0);
      }
    } finally {
      await sim.close();
    }
  }, 120_000);
});
