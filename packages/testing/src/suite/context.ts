import { existsSync } from 'node:fs';
import type { Action, Connector } from '@plugboard/sdk';
import { type Fixture, fixturePath, outcomeError, readFixtureSync, scenariosIn } from '../fixture.js';
import { type ReplayResult, replayScenario } from '../replay.js';
import type { Scenario } from '../scenario.js';
import type { ConnectorSuiteOptions } from './options.js';

/** What every group of the standard suite reads: the connector, its scenarios and their fixtures, read once. */
export interface SuiteContext {
  connector: Connector;
  options: ConnectorSuiteOptions;
  scenarios: readonly Scenario[];
  fixtureOf(scenario: Scenario): Fixture;
  hasFixture(scenario: Scenario): boolean;
  /** Whether the scenario has a fixture and is expected to (or did) run without error. */
  succeeds(scenario: Scenario): boolean;
  scenariosOf(action: Action): Scenario[];
  /** Strict replay of the scenario's fixture with the network closed. */
  replay(scenario: Scenario): Promise<ReplayResult>;
}

export function suiteContext(connector: Connector, options: ConnectorSuiteOptions): SuiteContext {
  const { fixturesDir } = options;
  const scenarios = [...(options.scenarios ?? scenariosIn(fixturesDir))];
  const fixtures = new Map<string, Fixture>();
  const fixtureOf = (scenario: Scenario): Fixture => {
    let fixture = fixtures.get(scenario.name);
    if (!fixture) {
      fixture = readFixtureSync(fixturePath(fixturesDir, scenario.name));
      fixtures.set(scenario.name, fixture);
    }
    return fixture;
  };
  const hasFixture = (scenario: Scenario) => existsSync(fixturePath(fixturesDir, scenario.name));
  return {
    connector,
    options,
    scenarios,
    fixtureOf,
    hasFixture,
    succeeds: (scenario) =>
      hasFixture(scenario) &&
      (scenario.expect ? scenario.expect.error === undefined : outcomeError(fixtureOf(scenario).outcome) === undefined),
    scenariosOf: (action) => scenarios.filter((scenario) => scenario.action === action.key),
    replay: (scenario) =>
      replayScenario({
        connector,
        scenario,
        fixturesDir,
        ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
      }),
  };
}

/** Fails the test with every problem found, under a title naming what was checked. */
export function fail(problems: readonly string[], title: string): void {
  if (problems.length > 0) throw new Error(`${title}:\n- ${problems.join('\n- ')}`);
}
