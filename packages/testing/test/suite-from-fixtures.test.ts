import { describeConnector } from '../src/vitest.js';
import { sample } from './sample/connector.js';
import { FIXTURES_DIR } from './sample/scenarios.js';

/**
 * The standard suite with no scenario list: the scenarios stored in the
 * fixtures run (as for fixtures the CLI recorded). The fault checks run in
 * suite.test.ts already.
 */
describeConnector(sample, {
  fixturesDir: FIXTURES_DIR,
  incremental: [{ first: 'tasks-full', then: 'tasks-since' }],
  faults: false,
});
