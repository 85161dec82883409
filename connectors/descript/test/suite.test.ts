import { describeConnector } from '@plugboard/testing/vitest';
import { FIXTURES_DIR, INCREMENTAL, recordKey } from './scenarios.js';
import { fixedClockDescript } from './support.js';

/**
 * The standard connector suite, replaying every committed fixture with the network closed
 * (the scenarios are the ones stored in the fixtures). The connector runs with its clock fixed
 * where the fixtures were recorded, since jobs.list asks for "7 days ago"; its definition and
 * catalogue entry are the default export's (definition.test.ts checks they are equal).
 */
describeConnector(fixedClockDescript, { fixturesDir: FIXTURES_DIR, incremental: INCREMENTAL, recordKey });
