import { describeConnector } from '@plugboard/testing/vitest';
import insurance from '../src/index.js';
import { FIXTURES_DIR, scenarios } from './scenarios.js';

/** The standard connector suite, replaying the committed fixtures with the network closed. */
describeConnector(insurance, { fixturesDir: FIXTURES_DIR, scenarios });
