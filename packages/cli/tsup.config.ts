import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  // Simulators are private workspace packages, imported only by `plugboard simulate`.
  external: [/^@plugboard\/simulator-/],
});
