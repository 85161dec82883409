import { packageBuild } from '../../tsup.package.js';

export default packageBuild({ entry: ['src/main.ts'], dts: false });
