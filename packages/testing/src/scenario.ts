import type { Environment } from '@plugboard/sdk';

/**
 * A scenario is one run of one action, recorded to one fixture file named
 * after it: `<fixturesDir>/<name>.json`.
 */
export interface Scenario {
  /** File name of the fixture, without `.json`: lower case letters, digits, `.`, `_` and `-`. */
  name: string;
  /** The action key, e.g. `projects.list`. */
  action: string;
  input?: unknown;
  /** Connection id and non-secret settings; the base URL is decided by recording and replay. */
  connection?: { id?: string; settings?: Record<string, unknown> };
  /** Where an incremental source starts. */
  checkpoint?: unknown;
  /** Default `sandbox`. */
  environment?: Environment;
  /**
   * Runs with an approval of exactly this run decided by this approver (a name of the
   * test's, e.g. `test-approver`), through the same gate as any run.
   */
  approvedBy?: string;
  /** What the run must give; by default what the recording gave. */
  expect?: ScenarioExpectation;
  description?: string;
}

export interface ScenarioExpectation {
  /** The run fails with this `ConnectorError` code, e.g. `quota_exhausted`: the error's own or its family's (`errorCodes`). */
  error?: string;
  /** The records (compared with `[REDACTED]` as a wildcard), or just how many. */
  records?: unknown[] | number;
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

export function scenarioProblems(scenario: Scenario): string[] {
  const problems: string[] = [];
  if (typeof scenario.name !== 'string' || !NAME.test(scenario.name) || scenario.name.includes('..')) {
    problems.push(
      `name ${JSON.stringify(scenario.name)} must be lower case letters, digits, '.', '_' or '-' (it names the fixture file)`,
    );
  }
  if (typeof scenario.action !== 'string' || scenario.action === '') problems.push('an action key is required');
  if (
    scenario.approvedBy !== undefined &&
    (typeof scenario.approvedBy !== 'string' || scenario.approvedBy.trim() === '')
  ) {
    problems.push('approvedBy must name the approver');
  }
  if (
    scenario.environment !== undefined &&
    scenario.environment !== 'sandbox' &&
    scenario.environment !== 'production'
  ) {
    problems.push("environment must be 'sandbox' or 'production'");
  }
  return problems;
}

export function assertScenario(scenario: Scenario): void {
  const problems = scenarioProblems(scenario);
  if (problems.length > 0) throw new TypeError(`scenario ${JSON.stringify(scenario.name)}: ${problems.join('; ')}`);
}

/** Declares a scenario (checked at once); a typed identity for test files. */
export function defineScenario(scenario: Scenario): Scenario {
  assertScenario(scenario);
  return scenario;
}
