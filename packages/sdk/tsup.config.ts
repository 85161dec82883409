import { packageBuild } from '../../tsup.package.js';

// Two entries: `@plugboard/sdk` for connector authors, `@plugboard/sdk/host` for whatever runs connectors.
export default packageBuild({ entry: ['src/index.ts', 'src/host.ts'] });
