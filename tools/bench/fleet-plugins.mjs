// The plugin folders of tools/bench/fleet.mjs, laid out as `npm install` leaves a host's
// `--plugins DIR`: the Descript connector as it is, or a package of the bench's own wrapping it
// with a budget every connection shares (`scope: 'connector'`), declared so it binds. Not a
// benchmark itself.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './lib.mjs';

const DESCRIPT = join(root, 'connectors', 'descript');

async function folder() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-bench-fleet-')));
  await mkdir(join(dir, 'node_modules', '@plugboard'), { recursive: true });
  return dir;
}

/** A plugin folder holding the Descript connector package: `{ dir, remove() }`. */
export async function descriptPlugins() {
  const dir = await folder();
  await symlink(DESCRIPT, join(dir, 'node_modules', '@plugboard', 'connector-descript'), 'dir');
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

const BUDGETED = (perSecond) => `import { defineConnector } from '@plugboard/sdk';
import { descript } from '@plugboard/connector-descript';

const { action: _action, ...definition } = descript;
export default defineConnector({
  ...definition,
  rateLimits: { ...descript.rateLimits, default: { limit: ${perSecond}, per: 'second', scope: 'connector' } },
});
`;

/**
 * A plugin folder whose one package is the Descript connector with a default budget of
 * `perSecond` requests a second shared by every connection: `{ dir, remove() }`. The connector
 * it wraps is its dependency, out of the folder's sight, so one package claims the key.
 */
export async function budgetedDescriptPlugins(perSecond) {
  const dir = await folder();
  const pkg = join(dir, 'node_modules', 'bench-descript-budgeted');
  await mkdir(join(pkg, 'node_modules', '@plugboard'), { recursive: true });
  await symlink(DESCRIPT, join(pkg, 'node_modules', '@plugboard', 'connector-descript'), 'dir');
  await symlink(
    await realpath(join(DESCRIPT, 'node_modules', '@plugboard', 'sdk')),
    join(pkg, 'node_modules', '@plugboard', 'sdk'),
    'dir',
  );
  const manifest = {
    name: 'bench-descript-budgeted',
    version: '1.0.0',
    type: 'module',
    plugboard: { connector: './index.js', sdk: '^0.1.0' },
    dependencies: { '@plugboard/connector-descript': '*' },
    peerDependencies: { '@plugboard/sdk': '*' },
  };
  await writeFile(join(pkg, 'package.json'), JSON.stringify(manifest));
  await writeFile(join(pkg, 'index.js'), BUDGETED(perSecond));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
