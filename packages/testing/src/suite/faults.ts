import type { Action } from '@plugboard/sdk';
import { isImplemented } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type FaultServer, startFaultServer } from '../faults.js';
import { billableFaultProblems, errorMappingProblems } from '../probes.js';
import type { Scenario } from '../scenario.js';
import { fail, type SuiteContext } from './context.js';

/**
 * Every action run against a fault server of the suite's own: a billable action is never
 * retried, and 401, 402 and 429 map to their typed errors.
 */
export function describeFaults(suite: SuiteContext): void {
  const { connector } = suite;
  describe('faults and error mapping', () => {
    let server: FaultServer;
    beforeAll(async () => {
      server = await startFaultServer();
    });
    afterAll(async () => {
      await server?.close();
    });

    const exampleOf = (action: Action): Scenario | undefined =>
      suite.scenariosOf(action).find(suite.succeeds) ?? suite.scenariosOf(action).find(suite.hasFixture);
    const probeFor = (scenario: Scenario) => ({ server, basePath: suite.fixtureOf(scenario).basePath });

    for (const action of connector.actions.filter(isImplemented)) {
      if (action.billable) {
        it(`${action.key} is billable: a 503 and a 429 fail after exactly one request, never retried`, async () => {
          const scenario = exampleOf(action);
          if (!scenario) throw new Error(`billable action '${action.key}' has no scenario to run under a fault`);
          fail(await billableFaultProblems(connector, scenario, probeFor(scenario)), `billable action '${action.key}'`);
        });
      }
      it(`${action.key} maps 401, 402 and 429 to their typed errors (a refused credential, quota_exhausted, rate_limited)`, async () => {
        const scenario = exampleOf(action);
        if (!scenario) throw new Error(`action '${action.key}' has no scenario to run under a fault`);
        fail(await errorMappingProblems(connector, scenario, probeFor(scenario)), `action '${action.key}'`);
      });
    }
  });
}
