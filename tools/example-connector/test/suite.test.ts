import { describeConnector } from '@plugboard/testing/vitest';
import { shop } from '../src/connector.js';
import { FIXTURES_DIR, INCREMENTAL } from './scenarios.js';

/**
 * The standard connector suite over the committed fixtures, recorded with an OAuth2 connection:
 * replayed with the network closed and a placeholder token set that is never refreshed.
 */
describeConnector(shop, { fixturesDir: FIXTURES_DIR, incremental: INCREMENTAL });
