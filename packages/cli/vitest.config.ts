import { defineProject } from 'vitest/config';
import { maxWorkers } from '../../vitest.workers.js';

// The SDK is loaded by Node itself, not transformed by Vitest, so the CLI under test and
// the plugins it loads (whose SDK imports the runtime redirects to the host's) share one
// instance of it, as they do in the `plugboard` binary.
export default defineProject({
  test: {
    name: '@plugboard/cli',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // As every project (../../vitest.config.ts): a worker serves file after file.
    isolate: false,
    maxWorkers,
    server: { deps: { external: [/\/packages\/sdk\/dist\//] } },
  },
});
