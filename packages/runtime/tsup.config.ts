import { packageBuild } from '../../tsup.package.js';

// The plugin process's script is its own entry: the host starts it as a child, never imports it.
export default packageBuild({ entry: ['src/index.ts', 'src/plugin-process.ts'] });
