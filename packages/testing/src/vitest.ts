/**
 * `@plugboard/testing/vitest`: the standard suite, which registers vitest blocks. An entry
 * of its own, so that the rest of the kit (recording for the CLI, replay, the fault server)
 * never loads vitest.
 */
export { describeConnector } from './suite.js';
export type { ConnectorSuiteOptions, IncrementalPair } from './suite/options.js';
