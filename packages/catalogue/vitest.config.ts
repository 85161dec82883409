import { defineProject } from 'vitest/config';

// The type check of generated declarations and the browser test take seconds on a
// small machine.
export default defineProject({
  test: {
    name: '@plugboard/catalogue',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
