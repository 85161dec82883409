import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

/** What the tests of a scaffolded connector package share. */

export const WORKSPACE = join(import.meta.dirname, '..', '..', '..');
/** Descript's OpenAPI document, beside the clone. */
export const DESCRIPT_OPENAPI = join(WORKSPACE, '..', 'shared', 'reference', 'descript-openapi-1.2.yaml');

/** `plugboard new <name> --from-openapi <document> --operations <operations>` run in a new folder: the package's folder. */
export async function scaffoldFromOpenApi(
  name: string,
  document: string,
  operations: readonly string[],
): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), `plugboard-new-${name}-`));
  const created = bufferIo();
  const argv = ['new', name, '--from-openapi', document, '--operations', operations.join(',')];
  expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
  return join(cwd, name);
}

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

const execFileAsync = promisify(execFile);

/** Runs the scaffold's TypeScript compiler with these arguments (`-p tsconfig.build.json` builds dist/). */
export async function tsc(dir: string, ...args: string[]): Promise<void> {
  await execFileAsync(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], { cwd: dir });
}

/** What the scaffold's own tests (`npm test`) report when they fail; '' when they pass. */
export async function suiteFailures(dir: string): Promise<string> {
  return execFileAsync(process.execPath, [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
    cwd: dir,
    env: { ...process.env, CI: 'true' },
  }).then(
    () => '',
    (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
  );
}

/** `plugboard mock <document> --port 0 ...` run in the scaffold's folder, as its author would: where it listens, and how to stop it. */
export async function startMock(
  dir: string,
  args: readonly string[],
): Promise<{ url: string; stop: () => Promise<unknown> }> {
  const mock = bufferIo();
  const controller = new AbortController();
  const serving = runCli(['mock', ...args, '--port', '0'], { ...mock.io, cwd: dir }, { signal: controller.signal });
  const listening = / at (http:\/\/127\.0\.0\.1:\d+\S*) /;
  // A large document, and (since mock serves a stand-in authorization server for the folder's
  // connector) a look at the scaffold's connector first: more than the default second on a busy machine.
  await expect.poll(() => mock.stdout() || mock.stderr(), { timeout: 15_000 }).toMatch(listening);
  return {
    url: listening.exec(mock.stdout())![1]!,
    stop: () => {
      controller.abort();
      return serving;
    },
  };
}

/** The data types a scaffold's src/entities.ts exports, in order. */
export async function entityNames(dir: string): Promise<string[]> {
  const entities = await readFile(join(dir, 'src', 'entities.ts'), 'utf8');
  return [...entities.matchAll(/^export const (\w+) = /gm)].map((found) => found[1]!);
}

/**
 * Runs the `plugboard record` commands of a scaffold's README against `url` instead of the
 * stand-in address `standIn` they name, as an author would: the scenarios recorded, each with
 * the `--state` folder it was recorded from.
 */
export async function recordAsReadmeSays(dir: string, standIn: string, url: string): Promise<string[]> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const base = standIn.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const line = new RegExp(
    `^npx plugboard record (\\S+) --input '([^']*)' --scenario (\\S+)(?: --state (\\S+))? --base-url ${base}$`,
    'gm',
  );
  const commands = [...readme.matchAll(line)];
  for (const [, action, input, scenario, state] of commands) {
    const recorded = bufferIo({ PLUGBOARD_CREDENTIAL: 'stand-in-token' });
    const argv = ['record', action!, '--input', input!, '--scenario', scenario!, '--base-url', url, '--connector', dir];
    expect(
      await runCli([...argv, ...(state ? ['--state', state] : [])], { ...recorded.io, cwd: dir }),
      recorded.stderr(),
    ).toBe(0);
  }
  return commands.map((command) => `${command[3]}${command[4] ? ` --state ${command[4]}` : ''}`);
}
