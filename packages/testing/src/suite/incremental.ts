import type { Action } from '@plugboard/sdk';
import { isImplemented } from '@plugboard/sdk/host';
import { describe, it } from 'vitest';
import { incrementalProblems } from '../probes.js';
import { fail, type SuiteContext } from './context.js';
import type { IncrementalPair } from './options.js';

/** The problems of an incremental source's two-run pairs, each named by its pair. */
async function pairProblems(suite: SuiteContext, pairs: readonly IncrementalPair[]): Promise<string[]> {
  const { connector, options, scenarios } = suite;
  const problems: string[] = [];
  for (const pair of pairs) {
    const first = scenarios.find((scenario) => scenario.name === pair.first)!;
    const second = scenarios.find((scenario) => scenario.name === pair.then);
    if (!second) {
      problems.push(`pair ${pair.first} -> ${pair.then}: no scenario '${pair.then}'`);
      continue;
    }
    const found = await incrementalProblems(connector, first, second, {
      fixturesDir: options.fixturesDir,
      recordKey: options.recordKey,
      allowHosts: options.allowHosts,
    });
    problems.push(...found.map((problem) => `pair ${pair.first} -> ${pair.then}: ${problem}`));
  }
  return problems;
}

function itRunsTwice(suite: SuiteContext, action: Action): void {
  const pairs = (suite.options.incremental ?? []).filter(
    (pair) => suite.scenarios.find((scenario) => scenario.name === pair.first)?.action === action.key,
  );
  it(`${action.key} runs twice from fixtures: the second run starts at the first run's checkpoint (its newer-than bound on the first request), delivers no record the checkpoint holds as read and reads no record twice`, async () => {
    if (pairs.length === 0) {
      throw new Error(
        `incremental source '${action.key}' has no two-run pair; record a first run and a second run from its checkpoint and list them in options.incremental ({ first, then })`,
      );
    }
    fail(await pairProblems(suite, pairs), `incremental source '${action.key}'`);
  });
}

/** Every incremental source replayed twice, the second run from the first run's checkpoint. */
export function describeIncremental(suite: SuiteContext): void {
  const incrementalSources = suite.connector.actions.filter(
    (action) => action.direction === 'source' && action.incremental && isImplemented(action),
  );
  if (incrementalSources.length === 0) return;
  describe('incremental sources', () => {
    for (const action of incrementalSources) itRunsTwice(suite, action);
  });
}
