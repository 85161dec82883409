import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { answer, startFaultServer } from '@plugboard/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** A plugin folder as npm would leave it: the insurance connector package, and one that throws on import. */
let pluginDir: string;
beforeAll(async () => {
  pluginDir = await mkdtemp(join(tmpdir(), 'plugboard-plugins-'));
  const modules = join(pluginDir, 'node_modules');
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await symlink(
    fileURLToPath(new URL('../../../connectors/insurance', import.meta.url)),
    join(modules, '@plugboard', 'connector-insurance'),
    'dir',
  );
  await mkdir(join(modules, 'broken-connector'));
  await writeFile(
    join(modules, 'broken-connector', 'package.json'),
    JSON.stringify({
      name: 'broken-connector',
      version: '2.0.0',
      type: 'module',
      plugboard: { connector: './index.js', sdk: '^0.1.0' },
    }),
  );
  await writeFile(join(modules, 'broken-connector', 'index.js'), "throw new Error('boom at import');\n");
});

describe('plugboard plugins and run --plugins', () => {
  it('lists what a plugin folder loads and what failed, as JSON', async () => {
    const { io, stdout } = bufferIo();
    expect(await runCli(['plugins', '--dir', pluginDir], io, { pack: new Map() })).toBe(0);
    const report = JSON.parse(stdout()) as { loaded: unknown[]; failed: Array<{ package: string; reason: string }> };
    expect(report.loaded).toEqual([{ key: 'insurance', package: '@plugboard/connector-insurance', version: '0.1.0' }]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]!.package).toBe('broken-connector');
    expect(report.failed[0]!.reason).toContain('boom at import');
  });

  it('runs an action from the plugin folder instead of the pack, reporting the broken plugin on stderr', async () => {
    const simulator = await startInsuranceSimulator({ port: 0 });
    try {
      const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey });
      const input = JSON.stringify({
        applicant: { date_of_birth: '1988-04-12' },
        cause: 'illness',
        confinement_days: 7,
      });
      const code = await runCli(
        [
          'run',
          'insurance',
          'hospital_cash_classic_quotes.create',
          '--input',
          input,
          '--base-url',
          simulator.url,
          '--plugins',
          pluginDir,
        ],
        io,
        {
          pack: new Map(),
        },
      );
      expect(code).toBe(0);
      expect(JSON.parse(stdout())).toMatchObject({ tier: 'classic', confinement_days: 7 });
      expect(stderr()).toContain('plugin broken-connector not loaded');
    } finally {
      await simulator.close();
    }
  });

  it('reports a failure the plugin classified with its status and code, not as an internal error', async () => {
    const simulator = await startInsuranceSimulator({ port: 0 });
    try {
      const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: 'not-the-api-key' });
      const input = JSON.stringify({
        applicant: { date_of_birth: '1988-04-12' },
        cause: 'illness',
        confinement_days: 7,
      });
      const argv = [
        'run',
        'insurance',
        'hospital_cash_classic_quotes.create',
        '--input',
        input,
        '--base-url',
        simulator.url,
        '--plugins',
        pluginDir,
      ];
      expect(await runCli(argv, io, { pack: new Map() })).toBe(4);
      expect(JSON.parse(stderr().trim().split('\n').at(-1)!)).toMatchObject({
        error: 'request_failed',
        statusCode: 401,
        code: expect.stringMatching(/auth/),
      });
    } finally {
      await simulator.close();
    }
  });

  it("lists an input field's options from the plugin folder, and exits 2 for a field without them", async () => {
    const simulator = await startInsuranceSimulator({ port: 0 });
    try {
      const options = async (field: string) => {
        const out = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey });
        const argv = ['options', 'insurance', 'hospital_cash_basic_quotes.create', field, '--search', 'injury'];
        const code = await runCli([...argv, '--base-url', simulator.url, '--plugins', pluginDir], out.io, {
          pack: new Map(),
        });
        return { code, stdout: out.stdout(), stderr: out.stderr() };
      };
      const cause = await options('cause');
      expect(cause.code).toBe(0);
      expect(
        cause.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual([
        { value: 'accidental_injury', label: 'Accidental injury', description: 'Confinement after an accident' },
      ]);
      const applicant = await options('applicant');
      expect(applicant.code).toBe(2);
      expect(applicant.stderr).toContain("no options for input field 'applicant'");
    } finally {
      await simulator.close();
    }
  });

  it('takes a relative --dir from the working folder', async () => {
    const absolute = bufferIo();
    expect(await runCli(['plugins', '--dir', pluginDir], absolute.io, { pack: new Map() })).toBe(0);
    const relative = bufferIo();
    expect(await runCli(['plugins', '--dir', '.'], { ...relative.io, cwd: pluginDir }, { pack: new Map() })).toBe(0);
    expect(relative.stdout()).toBe(absolute.stdout());
    expect(absolute.stdout().endsWith('}\n')).toBe(true);
  });

  it.each([
    [['--dir', 'nope'], 'no such folder'],
    [[], "required option '--dir <dir>' not specified"],
    [['--dir', 'x', '--dri', 'x'], "unknown option '--dri'; did you mean --dir?"],
  ])('exits 2 on %j, naming the problem', async (argv, mention) => {
    const { io, stdout, stderr } = bufferIo();
    expect(await runCli(['plugins', ...argv], { ...io, cwd: pluginDir }, { pack: new Map() })).toBe(2);
    expect(stdout()).toBe('');
    expect(JSON.parse(stderr())).toMatchObject({
      code: 'invalid_input',
      statusCode: 400,
      message: expect.stringContaining(mention),
    });
  });

  it('a plugin that spins on the CPU in its read does not hold the command: Ctrl-C ends it after the grace period, with the reason', async () => {
    const server = await startFaultServer(answer({ status: 200, body: {} }));
    const folder = await mkdtemp(join(tmpdir(), 'plugboard-spin-'));
    try {
      const modules = join(folder, 'node_modules');
      await mkdir(join(modules, '@plugboard'), { recursive: true });
      await symlink(
        fileURLToPath(new URL('../node_modules/@plugboard/sdk', import.meta.url)),
        join(modules, '@plugboard', 'sdk'),
        'dir',
      );
      await symlink(fileURLToPath(new URL('../../sdk/node_modules/zod', import.meta.url)), join(modules, 'zod'), 'dir');
      await mkdir(join(modules, 'spin-connector'));
      await writeFile(
        join(modules, 'spin-connector', 'package.json'),
        JSON.stringify({
          name: 'spin-connector',
          version: '1.0.0',
          type: 'module',
          plugboard: { connector: './index.js', sdk: '^0.1.0' },
        }),
      );
      await writeFile(
        join(modules, 'spin-connector', 'index.js'),
        `import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
export default defineConnector({ key: 'spin', name: 'Spin', version: '1.0.0', vendor: null, category: 'developer', status: 'beta', summary: 'Spins.', auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [defineAction({ key: 'things.list', label: 'Things', direction: 'source', entity: z.object({}).meta({ id: 'SpinThing' }), input: z.object({}),
    async *read(ctx) { await ctx.http.get('/first'); while (true) {} } })] });
`,
      );
      const child = spawn(
        process.execPath,
        [BIN, 'run', 'spin', 'things.list', '--base-url', server.url, '--plugins', folder],
        { env: { ...process.env, PLUGBOARD_CREDENTIAL: 'token' } },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // The plugin is in its loop once its first request arrived.
      while (server.count === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      child.kill('SIGINT');
      expect(await exited).toBe(1);
      expect(stderr).toMatch(
        /the run was cancelled; spin-connector: did not stop its run within 2000 ms of being cancelled/,
      );
    } finally {
      await server.close();
      await rm(folder, { recursive: true, force: true });
    }
  }, 30_000);
});
