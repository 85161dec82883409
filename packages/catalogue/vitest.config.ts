import { defineProject } from 'vitest/config';

// The type check of generated declarations and the browser test take seconds on a
// small machine.
export default defineProject({
  // The root's settings (workers, isolation) apply here too.
  extends: true,
  test: {
    name: '@plugboard/catalogue',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    isolate: false,
  },
});
