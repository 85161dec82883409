import { existsSync, readdirSync } from 'node:fs';
import { isImplemented } from '@plugboard/sdk/host';
import { it } from 'vitest';
import { catalogueProblems } from '../checks.js';
import { fixturePath } from '../fixture.js';
import { fail, type SuiteContext } from './context.js';

/** Scenarios declared twice, or for no action, or without a fixture; actions without a successful run; fixtures of no scenario. */
function coverageProblems(suite: SuiteContext): string[] {
  const { connector, options, scenarios } = suite;
  const { fixturesDir } = options;
  const problems: string[] = [];
  const names = new Set<string>();
  for (const scenario of scenarios) {
    if (names.has(scenario.name)) problems.push(`scenario '${scenario.name}' is declared twice`);
    names.add(scenario.name);
    if (!connector.action(scenario.action))
      problems.push(`scenario '${scenario.name}' runs '${scenario.action}', which is not an action of the connector`);
    if (!suite.hasFixture(scenario))
      problems.push(
        `scenario '${scenario.name}' has no fixture at ${fixturePath(fixturesDir, scenario.name)}; record it`,
      );
  }
  for (const action of connector.actions) {
    if (!isImplemented(action)) continue;
    if (!suite.scenariosOf(action).some(suite.succeeds))
      problems.push(`action '${action.key}' has no recorded scenario with a successful run`);
  }
  if (options.scenarios && existsSync(fixturesDir)) {
    for (const file of readdirSync(fixturesDir).filter((name) => name.endsWith('.json'))) {
      if (!names.has(file.slice(0, -'.json'.length)))
        problems.push(`${file} belongs to no scenario of the suite; remove it or add the scenario`);
    }
  }
  return problems;
}

/** The suite's first checks: a valid catalogue entry, and scenarios with fixtures that cover every action. */
export function itHasCatalogueEntryAndCoverage(suite: SuiteContext): void {
  const { connector } = suite;
  it('has a valid catalogue entry', () => {
    fail(
      catalogueProblems(connector),
      `connector '${connector.key}': the catalogue entry is not a valid PublicConnector`,
    );
  });
  it('has a replayable scenario with a successful run for every action', () => {
    fail(coverageProblems(suite), `connector '${connector.key}': scenario coverage`);
  });
}
