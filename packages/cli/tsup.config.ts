import { packageBuild } from '../../tsup.package.js';

export default packageBuild({
  entry: ['src/index.ts', 'src/main.ts'],
  // Simulators are private workspace packages, imported only by `plugboard simulate`.
  external: [/^@plugboard\/simulator-/],
  // One file instead of commander's dozen: a cold start resolves and reads fewer modules.
  noExternal: ['commander'],
});
