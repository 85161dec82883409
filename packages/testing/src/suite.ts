import { existsSync, readdirSync } from 'node:fs';
import type { Action, Connector } from '@plugboard/sdk';
import { isImplemented } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { catalogueProblems, expectationOf, outcomeProblems, pagingProblems } from './checks.js';
import { type FaultServer, startFaultServer } from './faults.js';
import {
  type Fixture,
  fixturePath,
  outcomeError,
  type RecordedResponse,
  readFixtureSync,
  scenariosIn,
} from './fixture.js';
import { billableFaultProblems, errorMappingProblems, incrementalProblems } from './probes.js';
import { declaredPaginator, loopVariant, pagingEndProblems, pagingLoopProblems } from './paging-checks.js';
import { replayScenario } from './replay.js';
import type { Scenario } from './scenario.js';

/**
 * The standard suite every connector runs, in the spirit of singer-sdk's
 * standard tap tests and Airbyte's acceptance tests. It registers vitest
 * blocks; only the `@plugboard/testing/vitest` entry imports this module, so
 * the rest of the kit (recording for the CLI, the fault server) never loads
 * vitest, an optional peer.
 */

export interface IncrementalPair {
  /** The first run (from no checkpoint, or the scenario's). */
  first: string;
  /** The second run, recorded from the first run's final checkpoint. */
  then: string;
}

export interface ConnectorSuiteOptions {
  /** The connector's `test/fixtures/` folder. */
  fixturesDir: string;
  /** Default: every scenario stored in the fixtures folder. */
  scenarios?: readonly Scenario[];
  /** Two-run pairs; every incremental source needs at least one. */
  incremental?: readonly IncrementalPair[];
  /** The fault checks (billable actions not retried, 401/402/429 mapping); default on. */
  faults?: boolean;
  /** Identity of a record for "no record read twice"; default its `id`, else the whole record. */
  recordKey?: (record: unknown, action: string) => unknown;
  /** Hosts replay may still reach; none by default. */
  allowHosts?: readonly (string | RegExp)[];
  /**
   * Whether the last recorded answer of a source without a declared paginator offers another
   * page (a declared one says why its read ended, and is checked by that). Default: a next
   * marker in the JSON body (`next_cursor`, `paging.next`, `has_more: true` ...)
   * or a `Link` header with `rel="next"`; `false` turns the check off.
   */
  nextPage?: ((lastResponse: RecordedResponse) => boolean) | false;
}

function fail(problems: readonly string[], title: string): void {
  if (problems.length > 0) throw new Error(`${title}:\n- ${problems.join('\n- ')}`);
}

function describeScenario(scenario: Scenario): string {
  return `${scenario.name} (${scenario.action})`;
}

export function describeConnector(connector: Connector, options: ConnectorSuiteOptions): void {
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
  const succeeds = (scenario: Scenario) =>
    hasFixture(scenario) &&
    (scenario.expect ? scenario.expect.error === undefined : outcomeError(fixtureOf(scenario).outcome) === undefined);
  const scenariosOf = (action: Action) => scenarios.filter((scenario) => scenario.action === action.key);
  const replay = (scenario: Scenario | string, checkpoint?: unknown) =>
    replayScenario({
      connector,
      scenario,
      fixturesDir,
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
    });

  describe(`${connector.name} (${connector.key}): standard connector suite`, () => {
    it('has a valid catalogue entry', () => {
      fail(
        catalogueProblems(connector),
        `connector '${connector.key}': the catalogue entry is not a valid PublicConnector`,
      );
    });

    it('has a replayable scenario with a successful run for every action', () => {
      const problems: string[] = [];
      const names = new Set<string>();
      for (const scenario of scenarios) {
        if (names.has(scenario.name)) problems.push(`scenario '${scenario.name}' is declared twice`);
        names.add(scenario.name);
        if (!connector.action(scenario.action))
          problems.push(
            `scenario '${scenario.name}' runs '${scenario.action}', which is not an action of the connector`,
          );
        if (!hasFixture(scenario))
          problems.push(
            `scenario '${scenario.name}' has no fixture at ${fixturePath(fixturesDir, scenario.name)}; record it`,
          );
      }
      for (const action of connector.actions) {
        if (!isImplemented(action)) continue;
        if (!scenariosOf(action).some(succeeds))
          problems.push(`action '${action.key}' has no recorded scenario with a successful run`);
      }
      if (options.scenarios && existsSync(fixturesDir)) {
        for (const file of readdirSync(fixturesDir).filter((name) => name.endsWith('.json'))) {
          if (!names.has(file.slice(0, -'.json'.length)))
            problems.push(`${file} belongs to no scenario of the suite; remove it or add the scenario`);
        }
      }
      fail(problems, `connector '${connector.key}': scenario coverage`);
    });

    describe('replay with the network closed', () => {
      for (const scenario of scenarios) {
        it(`${describeScenario(scenario)} replays and gives what was recorded`, async () => {
          if (!connector.action(scenario.action))
            throw new Error(`scenario '${scenario.name}': no action '${scenario.action}'`);
          // Strict replay: an unrecorded request, or a recorded call not made (a source that stopped paging early), throws here.
          const result = await replay(scenario);
          // The SDK validated the records, the checkpoint and a destination's one result during the run.
          fail(outcomeProblems(result, expectationOf(scenario, result.fixture)), `scenario '${scenario.name}'`);
        });
      }
    });

    const pagedSources = connector.actions.filter((action) => declaredPaginator(action) && isImplemented(action));
    if (pagedSources.length > 0) {
      describe('declared paging', () => {
        for (const action of pagedSources) {
          it(`${action.key} reads every recorded page and ends at its paginator's stop condition, not at maxPages, maxRecords or maxMs`, async () => {
            const problems: string[] = [];
            for (const scenario of scenariosOf(action).filter(succeeds)) {
              try {
                problems.push(...pagingEndProblems(await replay(scenario)));
              } catch (error) {
                problems.push(`scenario '${scenario.name}': ${(error as Error).message}`);
              }
            }
            fail(problems, `source '${action.key}'`);
          });
          // A first run's recording: one from a checkpoint may stop, newest first, before the loop comes round.
          const recorded = scenariosOf(action)
            .filter(succeeds)
            .sort((a, b) => Number(a.checkpoint !== undefined) - Number(b.checkpoint !== undefined))
            .map((scenario) => ({ scenario, variant: loopVariant(fixtureOf(scenario), declaredPaginator(action)!) }))
            .find(({ variant }) => variant !== undefined);
          const guards = 'the loop guard stops a recorded read';
          if (!recorded) it.skip(`${action.key}: ${guards} made to loop (no recording of two pages or more)`, () => {});
          else
            it(`${action.key}: ${guards} where ${recorded.variant!.change} ('${recorded.scenario.name}'), with a PagingLoopError naming the action and page ${recorded.variant!.page}`, async () => {
              fail(
                await pagingLoopProblems(connector, recorded.scenario, {
                  fixturesDir,
                  allowHosts: options.allowHosts,
                }),
                `source '${action.key}'`,
              );
            });
        }
      });
    }

    const { nextPage } = options;
    if (nextPage !== false) {
      it('sources without a declared paginator page to the end: the last recorded answer of every successful run offers no further page', () => {
        const sources = scenarios.filter((scenario) => {
          const action = connector.action(scenario.action);
          return action?.direction === 'source' && !declaredPaginator(action) && succeeds(scenario);
        });
        fail(
          sources.flatMap((scenario) => pagingProblems(fixtureOf(scenario), nextPage)),
          `connector '${connector.key}': sources that stopped paging early`,
        );
      });
    }

    const incrementalSources = connector.actions.filter(
      (action) => action.direction === 'source' && action.incremental && isImplemented(action),
    );
    if (incrementalSources.length > 0) {
      describe('incremental sources', () => {
        for (const action of incrementalSources) {
          const pairs = (options.incremental ?? []).filter(
            (pair) => scenarios.find((scenario) => scenario.name === pair.first)?.action === action.key,
          );
          it(`${action.key} runs twice from fixtures: the second run starts at the first run's checkpoint (its newer-than bound on the first request), delivers no record the checkpoint holds as read and reads no record twice`, async () => {
            if (pairs.length === 0) {
              throw new Error(
                `incremental source '${action.key}' has no two-run pair; record a first run and a second run from its checkpoint and list them in options.incremental ({ first, then })`,
              );
            }
            const problems: string[] = [];
            for (const pair of pairs) {
              const first = scenarios.find((scenario) => scenario.name === pair.first)!;
              const second = scenarios.find((scenario) => scenario.name === pair.then);
              if (!second) {
                problems.push(`pair ${pair.first} -> ${pair.then}: no scenario '${pair.then}'`);
                continue;
              }
              const found = await incrementalProblems(connector, first, second, {
                fixturesDir,
                recordKey: options.recordKey,
                allowHosts: options.allowHosts,
              });
              problems.push(...found.map((problem) => `pair ${pair.first} -> ${pair.then}: ${problem}`));
            }
            fail(problems, `incremental source '${action.key}'`);
          });
        }
      });
    }

    if (options.faults !== false) {
      describe('faults and error mapping', () => {
        let server: FaultServer;
        beforeAll(async () => {
          server = await startFaultServer();
        });
        afterAll(async () => {
          await server?.close();
        });

        const exampleOf = (action: Action): Scenario | undefined =>
          scenariosOf(action).find(succeeds) ?? scenariosOf(action).find(hasFixture);
        const probeFor = (scenario: Scenario) => ({ server, basePath: fixtureOf(scenario).basePath });

        for (const action of connector.actions.filter(isImplemented)) {
          if (action.billable) {
            it(`${action.key} is billable: a 503 and a 429 fail after exactly one request, never retried`, async () => {
              const scenario = exampleOf(action);
              if (!scenario) throw new Error(`billable action '${action.key}' has no scenario to run under a fault`);
              fail(
                await billableFaultProblems(connector, scenario, probeFor(scenario)),
                `billable action '${action.key}'`,
              );
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
  });
}
