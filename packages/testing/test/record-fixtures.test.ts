import { describe, expect, it } from 'vitest';
import { recordSampleFixtures } from './sample/record-all.js';
import { FIXTURES_DIR, PLANTED_CANARY, scenarios } from './sample/scenarios.js';

/**
 * Re-records the committed fixtures of the sample connector. Off by default so
 * CI never rewrites them; run it on purpose:
 *
 *   PLUGBOARD_RECORD=1 pnpm exec vitest run packages/testing/test/record-fixtures.test.ts
 */
describe.runIf(process.env.PLUGBOARD_RECORD === '1')('re-recording the committed sample fixtures', () => {
  it('records every scenario into test/fixtures with the planted canary credential', async () => {
    const results = await recordSampleFixtures(FIXTURES_DIR, PLANTED_CANARY);
    expect(results.map((result) => result.fixture.scenario.name)).toEqual(scenarios.map((scenario) => scenario.name));
  });
});
