import { defineProject } from 'vitest/config';

// The crash test runs child processes; the loader tests import fixture packages.
// The SDK is loaded by Node itself, not transformed by Vitest, so the tests and the
// plugins they load (whose SDK imports the runtime redirects to the host's) share one
// instance of it, as they do outside the tests.
export default defineProject({
  // The root's settings (workers, isolation) apply here too.
  extends: true,
  test: {
    name: '@plugboard/runtime',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    isolate: false,
    server: { deps: { external: [/\/packages\/sdk\/dist\//] } },
  },
});
