import { defineProject } from 'vitest/config';

// The registry test packs the built packages, publishes them to a local Verdaccio and installs
// them with npm: a minute or two on a small machine. The SDK and the runtime are loaded by Node
// itself, not transformed by Vitest, so the runtime and the plugins it loads share the SDK
// instance as they do in a host.
export default defineProject({
  test: {
    name: '@plugboard/e2e',
    testTimeout: 120_000,
    hookTimeout: 10 * 60_000,
    server: { deps: { external: [/\/packages\/(sdk|runtime)\/dist\//] } },
  },
});
