import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type TestProjectConfiguration } from 'vitest/config';
import { maxWorkers } from './vitest.workers.js';

/**
 * One vitest project per workspace package. A package with its own
 * vitest.config.ts uses it; the others inherit the settings below, which
 * projects found by a glob would not.
 */
const folders = ['packages', 'connectors', 'tools/simulators']
  .flatMap((parent) => (existsSync(parent) ? readdirSync(parent).map((name) => join(parent, name)) : []))
  // The example connector records and replays its OAuth2 fixtures; the other tools have no tests of their own.
  .concat('tools/example-connector', 'test')
  .filter((folder) => existsSync(join(folder, 'package.json')));

const projects: TestProjectConfiguration[] = folders.map((folder) =>
  existsSync(join(folder, 'vitest.config.ts'))
    ? folder
    : {
        extends: true,
        test: {
          name: (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string }).name,
          root: folder,
        },
      },
);

export default defineConfig({
  test: {
    projects,
    maxWorkers,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker serves file after file: starting one per file cost about half a second each, a
    // sixth of the suite on two cores. Files restore what they change in the process (env, globals).
    isolate: false,
  },
});
