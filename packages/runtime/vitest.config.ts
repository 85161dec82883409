import { defineProject } from 'vitest/config';
import { maxWorkers } from '../../vitest.workers.js';

// The crash test runs child processes; the loader tests import fixture packages.
// The SDK is loaded by Node itself, not transformed by Vitest, so the tests and the
// plugins they load (whose SDK imports the runtime redirects to the host's) share one
// instance of it, as they do outside the tests.
export default defineProject({
  test: {
    name: '@plugboard/runtime',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // As every project (../../vitest.config.ts): a worker serves file after file.
    isolate: false,
    maxWorkers,
    server: { deps: { external: [/\/packages\/sdk\/dist\//] } },
  },
});
