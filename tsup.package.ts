import { defineConfig, type Options } from 'tsup';

/** The build every package shares: ESM with declarations and source maps, for Node 22 and later. */
export function packageBuild(options: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    ...options,
  });
}
