import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/** What the tests of a scaffolded connector package share. */

export const WORKSPACE = join(import.meta.dirname, '..', '..', '..');
/** Descript's OpenAPI document, beside the clone. */
export const DESCRIPT_OPENAPI = join(WORKSPACE, '..', 'shared', 'reference', 'descript-openapi-1.2.yaml');

/** What `npm install` would put in a scaffold's node_modules, linked from the workspace. */
export async function linkDependencies(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await mkdir(join(modules, '@types'), { recursive: true });
  for (const name of ['sdk', 'testing', 'cli'])
    await symlink(join(WORKSPACE, 'packages', name), join(modules, '@plugboard', name));
  await symlink(await realpath(join(WORKSPACE, 'packages', 'sdk', 'node_modules', 'zod')), join(modules, 'zod'));
  for (const name of ['typescript', 'vitest', '@types/node'])
    await symlink(await realpath(join(WORKSPACE, 'node_modules', name)), join(modules, name));
}
