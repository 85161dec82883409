import { defineProject } from 'vitest/config';
import { maxWorkers } from '../../vitest.workers.js';

// Every test file starts a PostgreSQL server of its own (initdb takes a second or two).
export default defineProject({
  test: {
    name: '@plugboard/worker',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // As every project (../../vitest.config.ts): a worker serves file after file.
    isolate: false,
    maxWorkers,
  },
});
