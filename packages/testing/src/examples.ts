import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareText } from '@plugboard/sdk/host';
import { type Fixture, readFixtureSync } from './fixture.js';

/**
 * What a connector's recordings show of each action, for its catalogue: the input of a
 * successful run and the first record (or a destination's result) it gave, already redacted
 * as every fixture is. A run from no checkpoint comes before one from a checkpoint, then the
 * scenario named after the action, then by name.
 */

export interface RecordedExample {
  /** The scenario it comes from. */
  scenario: string;
  input: unknown;
  record: unknown;
}

/** Recorded examples by action key; empty when the folder does not exist. */
export function recordedExamples(fixturesDir: string): Record<string, RecordedExample> {
  if (!existsSync(fixturesDir)) return {};
  const fixtures = readdirSync(fixturesDir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => readFixtureSync(join(fixturesDir, file)))
    .sort(preferred);
  const examples: Record<string, RecordedExample> = {};
  for (const { scenario, outcome } of fixtures) {
    if (scenario.action in examples || !('records' in outcome) || outcome.records.length === 0) continue;
    examples[scenario.action] = { scenario: scenario.name, input: scenario.input ?? {}, record: outcome.records[0] };
  }
  return examples;
}

function preferred(a: Fixture, b: Fixture): number {
  const rank = (fixture: Fixture) =>
    (fixture.scenario.checkpoint === undefined ? 0 : 2) + (fixture.scenario.name === fixture.scenario.action ? 0 : 1);
  return rank(a) - rank(b) || compareText(a.scenario.name, b.scenario.name);
}
