import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, cleanEnv, ROOT } from './support/packages.js';
import { DEAD_PROXY } from './support/registry.js';

/**
 * `./pbw local-registry` (scripts/local-registry.mjs) as an author meets it, its output a pipe
 * (a script, CI): it says what it is doing while it starts, serves the kit, and takes the
 * author's own packages, scoped or not, published with the line it prints and `--registry`
 * naming it. npm's default registry here is a closed local port: a publish that did not name
 * the local registry could go nowhere else.
 */

const KIT = [
  'packages/sdk',
  'packages/testing',
  'packages/catalogue',
  'packages/runtime',
  'packages/worker',
  'packages/triggers',
  'packages/mcp',
  'packages/cli',
];

let tmp: string;
let child: ChildProcess;
let stdout = '';
let stderr = '';

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-local-registry-test-')));
  await assertBuilt(KIT);
  await mkdir(join(tmp, 'tmp'));
  child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts', 'local-registry.mjs'), '--port', '0'],
    { cwd: ROOT, env: cleanEnv({ TMPDIR: join(tmp, 'tmp') }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  process.once('exit', () => child.kill('SIGKILL'));
  // Served once it printed what to do, which ends with an empty line.
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (stdout.includes('served at') && stdout.endsWith('\n\n')) resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`local-registry exited (${code}):\n${stdout}\n${stderr}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** npm with nothing of the machine's: empty global config, a default registry nothing listens on. */
async function npmIn(cwd: string, args: string[]): Promise<{ code: number; output: string }> {
  const userconfig = join(tmp, 'userconfig');
  await writeFile(
    userconfig,
    `registry=${DEAD_PROXY}\nproxy=${DEAD_PROXY}\nhttps-proxy=${DEAD_PROXY}\nnoproxy=127.0.0.1\n`,
  );
  const globalconfig = join(tmp, 'globalconfig');
  await writeFile(globalconfig, '');
  const env = cleanEnv({
    npm_config_userconfig: userconfig,
    npm_config_globalconfig: globalconfig,
    npm_config_cache: join(tmp, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  });
  return promisify(execFile)('npm', args, { cwd, env }).then(
    ({ stdout: out, stderr: err }) => ({ code: 0, output: `${out}${err}` }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
}

describe('./pbw local-registry', () => {
  test('says on stderr what it is doing while it starts, each step begun and done, when its output is not a terminal', () => {
    const url = /served at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1];
    expect(url, stdout).toBeDefined();
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe('local-registry: starting the registry on 127.0.0.1 (--port 0)');
    expect(lines).toContain(`local-registry: the registry listens at ${url}`);
    const packing = lines.filter((line) => line.startsWith('local-registry: packing '));
    expect(packing.map((line) => /@plugboard\/\S+/.exec(line)?.[0]).sort()).toEqual(
      KIT.map((folder) => `@plugboard/${folder.split('/')[1]}`).sort(),
    );
    expect(packing.map((line) => /\((\d+) of (\d+)\)$/.exec(line)?.slice(1).join('/'))).toEqual(
      KIT.map((_, index) => `${index + 1}/${KIT.length}`),
    );
    expect(lines).toContain(`local-registry: publishing ${KIT.length} packages`);
    expect(lines.at(-1)).toMatch(new RegExp(`^local-registry: published ${KIT.length} packages in \\d+(\\.\\d)? s$`));
  });

  test("takes the author's own packages, with or without a scope, published as it says", async () => {
    const url = /served at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)![1]!;
    // The line it prints, as printed: a token for this registry only, in the package's own .npmrc.
    const tokenLine = /^ {2}(npm config set \/\/127\.0\.0\.1:\d+\/:_authToken=\S+ --location=project)$/m.exec(
      stdout,
    )?.[1];
    expect(tokenLine, stdout).toBeDefined();
    for (const name of ['plugboard-connector-acme', '@someone/plugboard-connector-thing']) {
      const dir = join(tmp, name.replace('/', '+'));
      await mkdir(dir);
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '0.2.0', main: 'index.js' }));
      await writeFile(join(dir, 'index.js'), 'export {};\n');
      // Before the line, npm asks for a login even on the local registry.
      const refused = await npmIn(dir, ['publish', '--registry', url]);
      expect(refused.code, refused.output).not.toBe(0);
      expect(refused.output).toContain('ENEEDAUTH');
      const [, , ...args] = tokenLine!.split(' ');
      expect((await npmIn(dir, ['config', ...args])).code).toBe(0);
      const dry = await npmIn(dir, ['publish', '--dry-run', '--registry', url]);
      expect(dry.code, dry.output).toBe(0);
      expect(dry.output).toContain(`Publishing to ${url} with tag latest`);
      const published = await npmIn(dir, ['publish', '--registry', url]);
      expect(published.code, published.output).toBe(0);
      const packument = (await (await fetch(`${url}${name.replace('/', '%2f')}`)).json()) as {
        versions?: Record<string, unknown>;
      };
      expect(Object.keys(packument.versions ?? {})).toEqual(['0.2.0']);
      // The token stays in the package's .npmrc, for this registry only.
      expect(await readFile(join(dir, '.npmrc'), 'utf8')).toMatch(/^\/\/127\.0\.0\.1:\d+\/:_authToken=/m);
    }
  });
});
