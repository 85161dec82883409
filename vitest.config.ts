import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'connectors/*', 'tools/*', 'tools/simulators/*', 'test'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
