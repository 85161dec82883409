import { describe, it } from 'vitest';
import { expectationOf, outcomeProblems } from '../checks.js';
import type { Scenario } from '../scenario.js';
import { fail, type SuiteContext } from './context.js';

function describeScenario(scenario: Scenario): string {
  return `${scenario.name} (${scenario.action})`;
}

/** Every scenario replayed and its outcome compared with what was recorded or expected. */
export function describeReplay(suite: SuiteContext): void {
  describe('replay with the network closed', () => {
    for (const scenario of suite.scenarios) {
      it(`${describeScenario(scenario)} replays and gives what was recorded`, async () => {
        if (!suite.connector.action(scenario.action))
          throw new Error(`scenario '${scenario.name}': no action '${scenario.action}'`);
        // Strict replay: an unrecorded request, or a recorded call not made (a source that stopped paging early), throws here.
        const result = await suite.replay(scenario);
        // The SDK validated the records, the checkpoint and a destination's one result during the run.
        fail(outcomeProblems(result, expectationOf(scenario, result.fixture)), `scenario '${scenario.name}'`);
      });
    }
  });
}
