import type { Action } from '@plugboard/sdk';
import { isImplemented } from '@plugboard/sdk/host';
import { describe, it } from 'vitest';
import { pagingProblems } from '../checks.js';
import { declaredPaginator, loopVariant, pagingEndProblems, pagingLoopProblems } from '../paging-checks.js';
import { fail, type SuiteContext } from './context.js';

/** A source with a declared paginator reads every recorded page and ends at its stop condition, not at a limit. */
function itEndsAtStopCondition(suite: SuiteContext, action: Action): void {
  it(`${action.key} reads every recorded page and ends at its paginator's stop condition, not at maxPages, maxRecords or maxMs`, async () => {
    const problems: string[] = [];
    for (const scenario of suite.scenariosOf(action).filter(suite.succeeds)) {
      try {
        problems.push(...pagingEndProblems(await suite.replay(scenario)));
      } catch (error) {
        problems.push(`scenario '${scenario.name}': ${(error as Error).message}`);
      }
    }
    fail(problems, `source '${action.key}'`);
  });
}

/** The loop guard stops a recording of two pages or more made to loop (skipped when there is none). */
function itStopsLoop(suite: SuiteContext, action: Action): void {
  const { connector, options } = suite;
  // A first run's recording: one from a checkpoint may stop, newest first, before the loop comes round.
  const recorded = suite
    .scenariosOf(action)
    .filter(suite.succeeds)
    .sort((a, b) => Number(a.checkpoint !== undefined) - Number(b.checkpoint !== undefined))
    .map((scenario) => ({ scenario, variant: loopVariant(suite.fixtureOf(scenario), declaredPaginator(action)!) }))
    .find(({ variant }) => variant !== undefined);
  const guards = 'the loop guard stops a recorded read';
  if (!recorded) it.skip(`${action.key}: ${guards} made to loop (no recording of two pages or more)`, () => {});
  else
    it(`${action.key}: ${guards} where ${recorded.variant!.change} ('${recorded.scenario.name}'), with a PagingLoopError naming the action and page ${recorded.variant!.page}`, async () => {
      fail(
        await pagingLoopProblems(connector, recorded.scenario, {
          fixturesDir: options.fixturesDir,
          allowHosts: options.allowHosts,
        }),
        `source '${action.key}'`,
      );
    });
}

/** Sources that page: those with a declared paginator end where it says; the others leave no page unread. */
export function describePaging(suite: SuiteContext): void {
  const { connector, options, scenarios } = suite;
  const pagedSources = connector.actions.filter((action) => declaredPaginator(action) && isImplemented(action));
  if (pagedSources.length > 0) {
    describe('declared paging', () => {
      for (const action of pagedSources) {
        itEndsAtStopCondition(suite, action);
        itStopsLoop(suite, action);
      }
    });
  }

  const { nextPage } = options;
  if (nextPage !== false) {
    it('sources without a declared paginator page to the end: the last recorded answer of every successful run offers no further page', () => {
      const sources = scenarios.filter((scenario) => {
        const action = connector.action(scenario.action);
        return action?.direction === 'source' && !declaredPaginator(action) && suite.succeeds(scenario);
      });
      fail(
        sources.flatMap((scenario) => pagingProblems(suite.fixtureOf(scenario), nextPage)),
        `connector '${connector.key}': sources that stopped paging early`,
      );
    });
  }
}
