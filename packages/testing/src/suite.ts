import type { Connector } from '@plugboard/sdk';
import { describe } from 'vitest';
import { suiteContext } from './suite/context.js';
import { itHasCatalogueEntryAndCoverage } from './suite/coverage.js';
import { describeFaults } from './suite/faults.js';
import { describeIncremental } from './suite/incremental.js';
import type { ConnectorSuiteOptions } from './suite/options.js';
import { describePaging } from './suite/paging.js';
import { describeReplay } from './suite/replay.js';

/**
 * The standard suite every connector runs, in the spirit of singer-sdk's
 * standard tap tests and Airbyte's acceptance tests. It registers vitest
 * blocks; only the `@plugboard/testing/vitest` entry imports this module, so
 * the rest of the kit (recording for the CLI, the fault server) never loads
 * vitest, an optional peer. Each group of checks lives in `suite/`.
 */

export function describeConnector(connector: Connector, options: ConnectorSuiteOptions): void {
  const suite = suiteContext(connector, options);
  describe(`${connector.name} (${connector.key}): standard connector suite`, () => {
    itHasCatalogueEntryAndCoverage(suite);
    describeReplay(suite);
    describePaging(suite);
    describeIncremental(suite);
    if (options.faults !== false) describeFaults(suite);
  });
}
