import { defineProject } from 'vitest/config';
import { maxWorkers } from '../../vitest.workers.js';

// The type check of generated declarations and the browser test take seconds on a
// small machine.
export default defineProject({
  test: {
    name: '@plugboard/catalogue',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // As every project (../../vitest.config.ts): a worker serves file after file.
    isolate: false,
    maxWorkers,
  },
});
