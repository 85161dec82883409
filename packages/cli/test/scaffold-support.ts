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

/**
 * `plugboard mock <document> --port 0 ...` run in the scaffold's folder with `env`, as its author
 * would: where it listens, how to stop it, and its request lines on stderr.
 */
export async function startMock(
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ url: string; stop: () => Promise<unknown>; requests: () => string }> {
  const mock = bufferIo(env);
  const controller = new AbortController();
  const serving = runCli(['mock', ...args, '--port', '0'], { ...mock.io, cwd: dir }, { signal: controller.signal });
  const listening = / at (http:\/\/127\.0\.0\.1:\d+\S*) /;
  // A large document, and (since mock serves a stand-in authorization server for the folder's
  // connector) a look at the scaffold's connector first: more than the default second on a busy machine.
  await expect.poll(() => mock.stdout() || mock.stderr(), { timeout: 15_000 }).toMatch(listening);
  return {
    url: listening.exec(mock.stdout())![1]!,
    requests: mock.stderr,
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
 * stand-in address `standIn` they name (and at its stand-in authorization server, where they
 * name one with `--auth-base-url`), as an author would: the scenarios recorded, each with the
 * `--state` folder it was recorded from.
 */
export async function recordAsReadmeSays(
  dir: string,
  standIn: string,
  url: string,
  env: Record<string, string> = { PLUGBOARD_CREDENTIAL: 'stand-in-token' },
): Promise<string[]> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const base = standIn.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const line = new RegExp(
    `^npx plugboard record (\\S+) --input '([^']*)' --scenario (\\S+)(?: --state (\\S+))?(?: --auth-base-url (\\S+))? --base-url ${base}$`,
    'gm',
  );
  const commands = [...readme.matchAll(line)];
  const origin = new URL(url).origin;
  for (const [, action, input, scenario, state, authBase] of commands) {
    const recorded = bufferIo(env);
    const argv = ['record', action!, '--input', input!, '--scenario', scenario!, '--base-url', url, '--connector', dir];
    const standInAuth = authBase ? ['--auth-base-url', authBase.replace(new URL(standIn).origin, origin)] : [];
    expect(
      await runCli([...argv, ...(state ? ['--state', state] : []), ...standInAuth], { ...recorded.io, cwd: dir }),
      recorded.stderr(),
    ).toBe(0);
  }
  return commands.map((command) => `${command[3]}${command[4] ? ` --state ${command[4]}` : ''}`);
}

/**
 * The README's `auth login` line run against the stand-in at `origin` instead of the address it
 * names, with `env` (where the sign-in is kept): the URL it prints opened as a browser would,
 * following redirects (the stand-in consents at once). What `auth login` printed.
 */
export async function signInAsReadmeSays(dir: string, origin: string, env: Record<string, string>): Promise<string> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const line = /^PLUGBOARD_CLIENT_ID=(\S+) npx plugboard (auth login .*)$/m.exec(readme);
  expect(line, 'the README signs in with auth login').not.toBeNull();
  const argv = line![2]!.replaceAll('http://127.0.0.1:4010', origin).split(' ');
  const login = bufferIo({ ...env, PLUGBOARD_CLIENT_ID: line![1]! });
  const signingIn = runCli(argv, { ...login.io, cwd: dir });
  // The URL to open, on the line auth login prints about it (JSON, as stderr is no terminal).
  const printed = () =>
    login
      .stderr()
      .split('\n')
      .filter((said) => said.startsWith('{'))
      .map((said) => (JSON.parse(said) as { url?: string }).url)
      .find((url) => url !== undefined);
  await expect.poll(printed, { timeout: 15_000 }).toBeDefined();
  const browser = await fetch(printed()!);
  expect(browser.status, await browser.text()).toBe(200);
  expect(await signingIn, login.stderr()).toBe(0);
  return login.stdout();
}
