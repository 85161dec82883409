import { defineProject } from 'vitest/config';

// The SDK is loaded by Node itself, not transformed by Vitest, so the CLI under test and
// the plugins it loads (whose SDK imports the runtime redirects to the host's) share one
// instance of it, as they do in the `plugboard` binary.
export default defineProject({
  test: {
    name: '@plugboard/cli',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    server: { deps: { external: [/\/packages\/sdk\/dist\//] } },
  },
});
