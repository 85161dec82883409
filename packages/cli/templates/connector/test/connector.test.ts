import { fileURLToPath } from 'node:url';
import { describeConnector } from '@plugboard/testing/vitest';
import connector from '../src/index.js';

/** The standard suite, replaying test/fixtures/ with the network closed. */
describeConnector(connector, {
  fixturesDir: fileURLToPath(new URL('./fixtures/', import.meta.url)),
  incremental: [{ first: 'items-full', then: 'items-since' }],
});
