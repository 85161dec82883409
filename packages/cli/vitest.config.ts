import { defineProject } from 'vitest/config';

// The SDK is loaded by Node itself, not transformed by Vitest, so the CLI under test and
// the plugins it loads (whose SDK imports the runtime redirects to the host's) share one
// instance of it, as they do in the `plugboard` binary.
export default defineProject({
  // The root's settings (workers, isolation) apply here too.
  extends: true,
  test: {
    name: '@plugboard/cli',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    isolate: false,
    server: { deps: { external: [/\/packages\/sdk\/dist\//] } },
  },
});
