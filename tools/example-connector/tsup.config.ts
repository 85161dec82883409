import { packageBuild } from '../../tsup.package.js';

// The connector is an entry of its own: the runtime's tests start it as an isolated plugin.
export default packageBuild({ entry: ['src/index.ts', 'src/connector.ts'] });
