import { describeConnector } from '../src/vitest.js';
import { sample } from './sample/connector.js';
import { FIXTURES_DIR, scenarios } from './sample/scenarios.js';

/** The standard suite on the sample connector, from the committed fixtures. */
describeConnector(sample, {
  fixturesDir: FIXTURES_DIR,
  scenarios,
  incremental: [{ first: 'tasks-full', then: 'tasks-since' }],
});
