import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { describePlugin, describePlugins, PluginKilledError, PluginLoadError, pluginsReport } from '../src/index.js';
import { connectorSource, npmFolder, type PluginFolder } from './support/plugins.js';

const folders: PluginFolder[] = [];
async function track(folder: Promise<PluginFolder>): Promise<PluginFolder> {
  const made = await folder;
  folders.push(made);
  return made;
}

const HOST_SECRET = 'host-secret-value-1234';
const saved = { credential: process.env.PLUGBOARD_CREDENTIAL, aws: process.env.AWS_SECRET_ACCESS_KEY };
beforeEach(() => {
  process.env.PLUGBOARD_CREDENTIAL = HOST_SECRET;
  process.env.AWS_SECRET_ACCESS_KEY = HOST_SECRET;
});
afterEach(async () => {
  for (const [name, value] of [
    ['PLUGBOARD_CREDENTIAL', saved.credential],
    ['AWS_SECRET_ACCESS_KEY', saved.aws],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await Promise.all(folders.splice(0).map((folder) => folder.cleanup()));
});

async function killed(promise: Promise<unknown>): Promise<PluginKilledError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PluginKilledError);
  return error as PluginKilledError;
}

/** A connector whose name reports what its import saw, so the test reads it from the metadata. */
function spySource(key: string, probe: string): string {
  return `import * as fs from 'node:fs';\nimport * as cp from 'node:child_process';\nconst seen = await (async () => { ${probe} })();\n${connectorSource(key).replace(`name: 'Fixture ${key}'`, 'name: JSON.stringify(seen)')}`;
}

describe('describePlugins (each plugin in its own process)', () => {
  test('lists a connector with its actions, without importing it into the host', async () => {
    const folder = await track(
      npmFolder([
        {
          name: 'connector-alpha',
          version: '2.0.0',
          entry: `globalThis.plugboardAlphaImported = true;\n${connectorSource('alpha')}`,
        },
      ]),
    );
    const { described, failed } = await describePlugins(folder.dir);
    expect(failed).toEqual([]);
    expect(described).toMatchObject([
      { key: 'alpha', name: 'Fixture alpha', connectorVersion: '1.0.0', package: 'connector-alpha', version: '2.0.0' },
    ]);
    expect(described[0]!.actions).toEqual([{ key: 'things.list', label: 'List things', direction: 'source' }]);
    expect((globalThis as { plugboardAlphaImported?: boolean }).plugboardAlphaImported).toBeUndefined();
  });

  test('a plugin sees none of the host environment, cannot write, spawn or read another package', async () => {
    const folder = await track(
      npmFolder([
        { name: 'connector-other', entry: `// other-package-private\n${connectorSource('other')}` },
        {
          name: 'connector-spy',
          entry: spySource(
            'spy',
            `const attempt = (fn) => { try { fn(); return 'allowed'; } catch (error) { return error.code ?? error.message; } };
             return {
               env: process.env,
               write: attempt(() => fs.writeFileSync(new URL('./written.txt', import.meta.url), 'x')),
               spawn: attempt(() => cp.execFileSync('/bin/true')),
               other: attempt(() => fs.readFileSync(new URL('../connector-other/index.js', import.meta.url), 'utf8')),
             };`,
          ),
        },
      ]),
    );
    const spy = await describePlugin({ name: 'connector-spy', from: folder.dir });
    const seen = JSON.parse(spy.name) as { env: Record<string, string>; write: string; spawn: string; other: string };
    expect(JSON.stringify(seen.env)).not.toContain(HOST_SECRET);
    expect(seen.env.PLUGBOARD_CREDENTIAL).toBeUndefined();
    expect(seen).toMatchObject({ write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', other: 'ERR_ACCESS_DENIED' });
    expect(existsSync(join(folder.modules, 'connector-spy', 'written.txt'))).toBe(false);
  });

  test('printing on import is the plugin log, never part of the answer', async () => {
    const forged = JSON.stringify({
      type: 'described',
      connector: { key: 'forged', name: 'forged', version: '9.9.9', actions: [] },
    });
    const folder = await track(
      npmFolder([
        {
          name: 'connector-noisy',
          entry: `console.log(${JSON.stringify(forged)});\nprocess.stdout.write('{"key":"forged"}\\n');\n${connectorSource('noisy')}`,
        },
      ]),
    );
    const { described } = await describePlugins(folder.dir);
    expect(described.map((plugin) => plugin.key)).toEqual(['noisy']);
  });

  test('a plugin that exits or tries to forge the channel is refused with its reason; the others are listed', async () => {
    const folder = await track(
      npmFolder([
        { name: 'connector-good', entry: connectorSource('good') },
        { name: 'connector-exit', entry: `process.exit(0);\n${connectorSource('exit')}` },
        {
          name: 'connector-forge',
          entry: `process.send?.({ type: 'described', connector: { key: 'forged', actions: [] } });\nexport default {};`,
        },
      ]),
    );
    // None of them hangs: the load timeout only bounds a machine too busy to start them.
    const { described, failed } = await describePlugins(folder.dir, { loadTimeoutMs: 45_000 });
    expect(described.map((plugin) => plugin.key)).toEqual(['good']);
    const why = Object.fromEntries(failed.map((plugin) => [plugin.package, plugin.killed ?? plugin.reason]));
    expect(why).toMatchObject({ 'connector-exit': 'exited' });
    expect(why['connector-forge']).toMatch(/not a connector made by defineConnector/);
  }, 60_000);

  test('a plugin that loops or never finishes loading is killed at the load timeout', async () => {
    const folder = await track(
      npmFolder([
        { name: 'connector-loop', entry: `while (true) {}\n${connectorSource('loop')}` },
        {
          name: 'connector-pending',
          entry: `setInterval(() => {}, 1000);\nawait new Promise(() => {});\n${connectorSource('pending')}`,
        },
      ]),
    );
    const { described, failed } = await describePlugins(folder.dir, { loadTimeoutMs: 2000 });
    expect(described).toEqual([]);
    expect(failed.map((plugin) => [plugin.package, plugin.killed ?? plugin.reason])).toEqual([
      ['connector-loop', 'load_timeout'],
      ['connector-pending', 'load_timeout'],
    ]);
  }, 60_000);

  test('a plugin that fills its heap is killed for memory', async () => {
    const folder = await track(
      npmFolder([
        {
          name: 'connector-heap',
          entry: `const hoard = []; while (true) hoard.push(new Array(1e5).fill(Math.random()));\n${connectorSource('heap')}`,
        },
      ]),
    );
    // Filling 32 MB takes a share of a core that a busy machine may not give within a few
    // seconds: the load timeout only bounds a plugin that never reaches its limit.
    const { failed } = await describePlugins(folder.dir, { loadTimeoutMs: 45_000, maxOldSpaceMb: 32 });
    expect(failed.map((plugin) => [plugin.package, plugin.killed ?? plugin.reason])).toEqual([
      ['connector-heap', 'memory'],
    ]);
  }, 60_000);

  test('pluginsReport lists isolated by default; two packages claiming one key are both refused; isolation none imports into the host', async () => {
    const marker = `globalThis.plugboardReportImported = true;\n${connectorSource('twin')}`;
    const folder = await track(
      npmFolder([
        { name: 'connector-solo', entry: `globalThis.plugboardReportImported = true;\n${connectorSource('solo')}` },
        { name: 'twin-a', entry: marker },
        { name: 'twin-b', version: '2.0.0', entry: marker },
      ]),
    );
    const isolated = await pluginsReport(folder.dir);
    expect(isolated.loaded).toEqual([{ key: 'solo', package: 'connector-solo', version: '1.0.0' }]);
    expect(isolated.failed.map((plugin) => plugin.package)).toEqual(['twin-a', 'twin-b']);
    expect(isolated.failed[0]!.reason).toMatch(
      /connector key 'twin' is claimed by 2 packages \(twin-a@1.0.0, twin-b@2.0.0\)/,
    );
    expect((globalThis as { plugboardReportImported?: boolean }).plugboardReportImported).toBeUndefined();
    expect(await pluginsReport(folder.dir, { isolation: 'none' })).toEqual(isolated);
    expect((globalThis as { plugboardReportImported?: boolean }).plugboardReportImported).toBe(true);
  });

  test('a killed plugin names the reason and the package', async () => {
    const folder = await track(
      npmFolder([{ name: 'connector-exit', entry: `console.error('leaving now');\nprocess.exit(3);` }]),
    );
    const error = await killed(describePlugin({ name: 'connector-exit', from: folder.dir }));
    expect(error).toMatchObject({ plugin: 'connector-exit', reason: 'exited' });
    expect(error.message).toMatch(/code 3/);
    expect(error.log).toContain('leaving now');
    await expect(describePlugin({ name: 'missing', from: folder.dir })).rejects.toBeInstanceOf(PluginLoadError);
  });
});

describe('the channel to the host', () => {
  test('an answer the plugin writes itself, straight to the channel, is refused, not taken for its description', async () => {
    const forged = JSON.stringify({
      type: 'described',
      connector: { key: 'forged', name: 'Forged', connectorVersion: '9.9.9', actions: [] },
    });
    const folder = await track(
      npmFolder([
        {
          name: 'connector-forger',
          entry: `import * as fs from 'node:fs';\nfor (let fd = 3; fd < 8; fd += 1) { try { fs.writeSync(fd, ${JSON.stringify(`${forged}\n`)}); } catch {} }\nawait new Promise((resolve) => setTimeout(resolve, 200));\n${connectorSource('forger')}`,
        },
      ]),
    );
    const { described, failed } = await describePlugins(folder.dir);
    expect(described.map((plugin) => plugin.key)).not.toContain('forged');
    expect(failed).toMatchObject([
      { package: 'connector-forger', reason: expect.stringMatching(/wrote to the channel to the host itself/) },
    ]);
  });
});
