import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDescriptSimulator } from '@plugboard/simulator-descript';
import { recordScenario, type RecordedOutcome } from '@plugboard/testing';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, recordingPlan } from './scenarios.js';
import { type Clock, fixedClockDescript, HAS_OPENAPI, OPENAPI_PATH, SEED, SIZE, T0 } from './support.js';

/**
 * Re-records test/fixtures from the simulator, in order, from a clean folder. Off by default
 * so CI only replays; run it on purpose (the same files come out every time: fixed seed, fixed
 * clock, one simulator):
 *
 *   PLUGBOARD_RECORD=1 pnpm exec vitest run connectors/descript/test/record.test.ts
 */
describe.runIf(process.env.PLUGBOARD_RECORD === '1')('recording the Descript fixtures from the simulator', () => {
  it('records every scenario', async () => {
    const clock: Clock = {
      now: T0,
      advance(ms) {
        this.now += ms;
      },
    };
    const sim = await startDescriptSimulator({
      port: 0,
      seed: SEED,
      size: SIZE,
      clock: () => clock.now,
      ...(HAS_OPENAPI ? { openapiPath: OPENAPI_PATH } : {}),
    });
    for (const file of readdirSync(FIXTURES_DIR).filter((name) => name.endsWith('.json')))
      rmSync(join(FIXTURES_DIR, file));
    const done = new Map<string, RecordedOutcome>();
    try {
      for (const step of recordingPlan(sim)) {
        const scenario = typeof step.scenario === 'function' ? step.scenario(done) : step.scenario;
        step.setup?.(sim, clock);
        const result = await recordScenario({
          connector: fixedClockDescript,
          scenario,
          fixturesDir: FIXTURES_DIR,
          baseUrl: sim.url,
          credential: step.credential ?? sim.token,
          retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 },
        });
        step.teardown?.(sim);
        expect(result.written).toBe(true);
        expect(result.text).not.toContain(sim.token);
        done.set(scenario.name, result.fixture.outcome);
      }
    } finally {
      await sim.close();
    }
  }, 120_000);
});
