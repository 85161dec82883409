import { packageBuild } from '../../tsup.package.js';

// The sampler has an entry of its own: plugboard mock loads it without the catalogue generator.
export default packageBuild({ entry: ['src/index.ts', 'src/sample.ts'] });
