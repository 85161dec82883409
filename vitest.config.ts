import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'connectors/*', 'tools/simulators/*', 'test'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
