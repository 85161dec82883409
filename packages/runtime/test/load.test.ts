import * as sdk from '@plugboard/sdk';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { hostSdkVersion } from '../src/load.js';
import { loadPack, loadPlugin, loadPlugins, PluginLoadError, pluginsReport, startPlugins } from '../src/index.js';
import { connectorSource, folderWithOwnSdk, npmFolder, type PluginFolder, pnpmFolder } from './support/plugins.js';

const folders: PluginFolder[] = [];
async function track(folder: Promise<PluginFolder>): Promise<PluginFolder> {
  const made = await folder;
  folders.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => folder.cleanup()));
});

async function refusal(promise: Promise<unknown>): Promise<PluginLoadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PluginLoadError);
  return error as PluginLoadError;
}

describe('loadPlugin', () => {
  test('loads a connector package by folder and by name from an npm plugin folder, scoped or not', async () => {
    const folder = await track(
      npmFolder([
        { name: '@acme/connector-alpha', version: '2.3.4', entry: connectorSource('alpha') },
        { name: 'connector-beta', entry: connectorSource('beta') },
      ]),
    );
    const byName = await loadPlugin({ name: '@acme/connector-alpha', from: folder.dir });
    expect(byName).toMatchObject({
      key: 'alpha',
      package: '@acme/connector-alpha',
      version: '2.3.4',
      sdk: '^0.1.0',
      sharesHostSdk: true,
    });
    expect(byName.connector.action('things.list')?.direction).toBe('source');
    const byDir = await loadPlugin({ dir: join(folder.modules, 'connector-beta') });
    expect(byDir.key).toBe('beta');
    // `from` may also be the node_modules folder itself.
    expect((await loadPlugin({ name: 'connector-beta', from: folder.modules })).key).toBe('beta');
  });

  test('the host SDK version is the installed @plugboard/sdk', () => {
    expect(hostSdkVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('refuses a package that is not installed, or has no manifest', async () => {
    const folder = await track(npmFolder([{ name: 'plain-lib', plugboard: null, entry: 'export default 1;' }]));
    expect((await refusal(loadPlugin({ name: 'missing-pkg', from: folder.dir }))).reason).toMatch(
      /not installed in .*there is no .*missing-pkg/,
    );
    const noManifest = await refusal(loadPlugin({ name: 'plain-lib', from: folder.dir }));
    expect(noManifest.package).toBe('plain-lib');
    expect(noManifest.reason).toMatch(/^no plugboard manifest: package.json has no "plugboard" field/);
    expect((await refusal(loadPlugin({ dir: join(folder.dir, 'nowhere') }))).reason).toMatch(/no such folder/);
  });

  test('refuses an incompatible SDK range, naming the range and the host version', async () => {
    const folder = await track(
      npmFolder([
        {
          name: 'connector-future',
          plugboard: { connector: './index.js', sdk: '^9.0.0' },
          entry: 'throw new Error("must not be imported")',
        },
      ]),
    );
    const error = await refusal(loadPlugin({ name: 'connector-future', from: folder.dir }));
    expect(error.reason).toBe(
      `incompatible SDK range: the connector needs @plugboard/sdk ^9.0.0, the host has ${hostSdkVersion()}`,
    );
    // The same range passes on a host whose SDK is in it.
    await expect(loadPlugin({ name: 'connector-future', from: folder.dir }, { sdkVersion: '9.1.0' })).rejects.toThrow(
      /threw on import: must not be imported/,
    );
  });

  test('refuses malformed manifests', async () => {
    const folder = await track(
      npmFolder([
        { name: 'bad-range', plugboard: { connector: './index.js', sdk: 'not a range' }, entry: connectorSource('x1') },
        { name: 'no-entry-field', plugboard: { sdk: '^0.1.0' }, entry: connectorSource('x2') },
        { name: 'missing-entry', plugboard: { connector: './dist/index.js', sdk: '^0.1.0' } },
        { name: 'escaping-entry', plugboard: { connector: '../other/index.js', sdk: '^0.1.0' } },
        {
          name: 'manifest-string',
          plugboard: './index.js' as unknown as Record<string, unknown>,
          entry: connectorSource('x3'),
        },
      ]),
    );
    const reason = async (name: string) => (await refusal(loadPlugin({ name, from: folder.dir }))).reason;
    expect(await reason('bad-range')).toMatch(/sdk range "not a range" is not a valid semver range/);
    expect(await reason('no-entry-field')).toMatch(/has no "connector" entry/);
    expect(await reason('missing-entry')).toMatch(
      /the connector entry .\/dist\/index.js does not exist in the package/,
    );
    expect(await reason('escaping-entry')).toMatch(/points outside the package/);
    expect(await reason('manifest-string')).toMatch(/must be an object/);
  });

  test('refuses an entry that is a link to a file outside its package, without importing it', async () => {
    const folder = await track(
      npmFolder([
        { name: 'linked-entry', plugboard: { connector: './index.js', sdk: '^0.1.0' } },
        { name: 'linked-dist', plugboard: { connector: './dist/index.js', sdk: '^0.1.0' } },
        { name: 'inner-link', plugboard: { connector: './index.js', sdk: '^0.1.0' } },
      ]),
    );
    // A valid connector outside every package, which marks the host when it is imported.
    const outside = join(folder.dir, 'outside');
    await mkdir(outside);
    const marked = `globalThis.plugboardOutsideImported = true;\n${connectorSource('outsider')}`;
    await writeFile(join(outside, 'index.js'), marked);
    await symlink(join(outside, 'index.js'), join(folder.modules, 'linked-entry', 'index.js'));
    await symlink(outside, join(folder.modules, 'linked-dist', 'dist'));
    // A link that stays inside the package is fine.
    await writeFile(join(folder.modules, 'inner-link', 'real.js'), connectorSource('inner'));
    await symlink('./real.js', join(folder.modules, 'inner-link', 'index.js'));

    for (const name of ['linked-entry', 'linked-dist']) {
      const error = await refusal(loadPlugin({ name, from: folder.dir }));
      expect(error.reason).toContain(`is a link to ${join(outside, 'index.js')}, outside the package`);
    }
    const { loaded, failed } = await loadPlugins(folder.dir);
    expect(loaded.map((plugin) => plugin.key)).toEqual(['inner']);
    expect(failed.map((plugin) => plugin.package).sort()).toEqual(['linked-dist', 'linked-entry']);
    // Isolated, the same: the entry's real path is checked before any process starts.
    const isolated = await startPlugins(folder.dir);
    await isolated.close();
    expect(isolated.loaded.map((plugin) => plugin.key)).toEqual(['inner']);
    expect(isolated.failed.map((plugin) => [plugin.package, plugin.reason])).toEqual([
      ['linked-dist', expect.stringContaining('outside the package')],
      ['linked-entry', expect.stringContaining(`is a link to ${join(outside, 'index.js')}, outside the package`)],
    ]);
    expect((globalThis as { plugboardOutsideImported?: boolean }).plugboardOutsideImported).toBeUndefined();
  });

  test('refuses an entry that throws on import, with the error', async () => {
    const folder = await track(
      npmFolder([{ name: 'connector-throws', entry: 'throw new TypeError("boom at import");\nexport default {};' }]),
    );
    const error = await refusal(loadPlugin({ name: 'connector-throws', from: folder.dir }));
    expect(error.reason).toBe('the entry ./index.js threw on import: TypeError: boom at import');
    expect((error.cause as Error).message).toBe('boom at import');
  });

  test('refuses an entry whose default export is not a valid connector', async () => {
    const plain = `export default ${JSON.stringify({ key: 'fake', name: 'Fake', version: '1.0.0', actions: [], auth: [], rateLimits: {}, limitations: [] })};`;
    const frozenBad = `
import { z } from 'zod';
import { bearerToken, defineAction } from '@plugboard/sdk';
const action = defineAction({ key: 'things', label: '', direction: 'source', entity: z.object({ id: z.string() }), input: z.object({}) });
export default Object.freeze({ key: 'Bad Key', name: 'Bad', version: 'one', vendor: null, category: 'developer', status: 'beta', summary: 's',
  auth: [bearerToken()], rateLimits: {}, limitations: [], actions: [action], action: (key) => (key === action.key ? action : undefined) });`;
    const folder = await track(
      npmFolder([
        { name: 'no-default', entry: 'export const connector = 1;' },
        { name: 'plain-object', entry: plain },
        { name: 'frozen-invalid', entry: frozenBad },
      ]),
    );
    const reason = async (name: string) => (await refusal(loadPlugin({ name, from: folder.dir }))).reason;
    expect(await reason('no-default')).toMatch(
      /default export is not a connector made by defineConnector \(it is undefined\)/,
    );
    expect(await reason('plain-object')).toMatch(
      /default export is not a connector made by defineConnector .*missing action/,
    );
    const invalid = await reason('frozen-invalid');
    expect(invalid).toMatch(/^invalid connector definition: /);
    expect(invalid).toContain('the key must be lower case letters');
    expect(invalid).toContain('version must be a semantic version');
    expect(invalid).toContain("action 'things': the key must look like `resource.verb`");
    expect(invalid).toContain('a label is required');
  });

  test('a plugin imports the host SDK instance, not the copy in its own folder', async () => {
    const shared = await track(folderWithOwnSdk([{ name: 'connector-shared', entry: connectorSource('shared') }]));
    const plugin = await loadPlugin({ name: 'connector-shared', from: shared.dir });
    expect(plugin.sharesHostSdk).toBe(true);
    const module = (await import(pathToFileURL(join(plugin.dir, 'index.js')).href)) as { ConnectorError: unknown };
    expect(module.ConnectorError).toBe(sdk.ConnectorError);

    // A library in the plugin folder that the connector uses gets the host's SDK as well.
    const withHelper = await track(
      folderWithOwnSdk([
        {
          name: 'plugboard-helpers',
          plugboard: null,
          entry: "export { ConnectorError as HelperError } from '@plugboard/sdk';",
        },
        {
          name: 'connector-helped',
          entry: connectorSource('helped', { extra: "export { HelperError } from 'plugboard-helpers';" }),
        },
      ]),
    );
    const result = await loadPlugins(withHelper.dir);
    expect(result.loaded.map((loaded) => loaded.key)).toEqual(['helped']);
    const helped = (await import(pathToFileURL(join(result.loaded[0]!.dir, 'index.js')).href)) as {
      HelperError: unknown;
    };
    expect(helped.HelperError).toBe(sdk.ConnectorError);

    const own = await track(folderWithOwnSdk([{ name: 'connector-own', entry: connectorSource('own') }]));
    const separate = await loadPlugin({ name: 'connector-own', from: own.dir }, { shareHostSdk: false });
    expect(separate.sharesHostSdk).toBe(false);
    const ownModule = (await import(pathToFileURL(join(separate.dir, 'index.js')).href)) as { ConnectorError: unknown };
    expect(ownModule.ConnectorError).not.toBe(sdk.ConnectorError);
  });
});

describe('loadPlugins', () => {
  test('loads the good plugins and lists the broken ones with their reasons', async () => {
    const folder = await track(
      npmFolder([
        { name: '@acme/connector-alpha', entry: connectorSource('alpha') },
        { name: 'connector-beta', version: '0.2.0', entry: connectorSource('beta') },
        { name: 'connector-throws', entry: 'throw new Error("no network here");' },
        {
          name: 'connector-old-sdk',
          plugboard: { connector: './index.js', sdk: '^9.0.0' },
          entry: connectorSource('old'),
        },
        { name: 'connector-invalid', entry: 'export default { key: 1 };' },
        { name: 'left-pad', plugboard: null, entry: 'export default (s) => s;' },
      ]),
    );
    const result = await loadPlugins(folder.dir);
    expect(result.loaded.map(({ key, package: name, version }) => ({ key, package: name, version }))).toEqual([
      { key: 'alpha', package: '@acme/connector-alpha', version: '1.0.0' },
      { key: 'beta', package: 'connector-beta', version: '0.2.0' },
    ]);
    // Packages without a manifest (the SDK, zod, left-pad) are not plugins: not listed.
    expect(result.failed.map((failure) => failure.package)).toEqual([
      'connector-invalid',
      'connector-old-sdk',
      'connector-throws',
    ]);
    const [invalid, oldSdk, throws] = result.failed.map((failure) => failure.reason);
    expect(invalid).toMatch(
      /^the entry's default export is not a connector made by defineConnector \(it is an object with key; missing name, /,
    );
    expect(oldSdk).toMatch(/^incompatible SDK range: the connector needs @plugboard\/sdk \^9.0.0/);
    expect(throws).toBe('the entry ./index.js threw on import: no network here');
  });

  test('two packages claiming one connector key: neither loads, each reason names both', async () => {
    const folder = await track(
      npmFolder([
        { name: 'connector-twin-a', version: '1.0.0', entry: connectorSource('twin') },
        { name: 'connector-twin-b', version: '3.1.0', entry: connectorSource('twin') },
        { name: 'connector-single', version: '1.0.0', entry: connectorSource('single') },
      ]),
    );
    const result = await loadPlugins(folder.dir);
    expect(result.loaded.map((plugin) => plugin.package)).toEqual(['connector-single']);
    const reason =
      "connector key 'twin' is claimed by 2 packages (connector-twin-a@1.0.0, connector-twin-b@3.1.0); none is loaded: keep one of them in the plugin folder";
    expect(result.failed.map(({ package: name, reason: why }) => ({ name, why }))).toEqual([
      { name: 'connector-twin-a', why: reason },
      { name: 'connector-twin-b', why: reason },
    ]);
  });

  test("follows pnpm's layout: linked direct dependencies and hoisted transitive ones", async () => {
    const folder = await track(
      pnpmFolder(
        [
          { name: '@acme/connector-alpha', entry: connectorSource('alpha') },
          { name: 'connector-throws', entry: 'throw new Error("broken");' },
        ],
        [{ name: 'connector-gamma', entry: connectorSource('gamma') }],
      ),
    );
    const result = await loadPlugins(folder.dir);
    expect(result.loaded.map((plugin) => plugin.key)).toEqual(['alpha', 'gamma']);
    expect(result.loaded[0]!.dir).toBe(await realpath(join(folder.modules, '@acme', 'connector-alpha')));
    expect(result.failed.map((failure) => failure.package)).toEqual(['connector-throws']);
    expect((await loadPlugin({ name: '@acme/connector-alpha', from: folder.dir })).key).toBe('alpha');
  });

  test('an empty or missing folder loads nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plugboard-empty-'));
    try {
      expect(await loadPlugins(dir)).toEqual({ loaded: [], failed: [] });
      expect(await loadPlugins(join(dir, 'missing'))).toEqual({ loaded: [], failed: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('loads a plugin from a folder outside node_modules', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-dir-')));
    try {
      await mkdir(join(dir, 'dist'));
      await writeFile(
        join(dir, 'package.json'),
        JSON.stringify({
          name: 'connector-local',
          version: '0.0.1',
          type: 'module',
          plugboard: { connector: './dist/index.js', sdk: '>=0.1.0 <1' },
        }),
      );
      // No zod or SDK beside it: the SDK comes from the host, and the entry needs nothing else.
      await writeFile(
        join(dir, 'dist', 'index.js'),
        `import { defineConnector, defineAction, bearerToken } from '@plugboard/sdk';
const schema = (await import(${JSON.stringify(pathToFileURL(await realpath(join(import.meta.dirname, '..', 'node_modules', 'zod', 'index.js'))).href)})).z;
export default defineConnector({ key: 'local', name: 'Local', version: '0.0.1', vendor: null, category: 'developer', status: 'alpha', summary: 'Local.', auth: bearerToken(),
  actions: [defineAction({ key: 'things.list', label: 'Things', direction: 'source', entity: schema.object({ id: schema.string() }).meta({ id: 'LocalThing' }), input: schema.object({}) })] });`,
      );
      const plugin = await loadPlugin({ dir });
      expect(plugin).toMatchObject({ key: 'local', package: 'connector-local', version: '0.0.1' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('CLI-ready functions', () => {
  test('pluginsReport gives exactly the loaded and failed packages', async () => {
    const folder = await track(
      npmFolder([
        { name: '@acme/connector-alpha', version: '1.2.0', entry: connectorSource('alpha') },
        { name: 'connector-throws', entry: 'throw new Error("boom");' },
      ]),
    );
    expect(await pluginsReport(folder.dir)).toEqual({
      loaded: [{ key: 'alpha', package: '@acme/connector-alpha', version: '1.2.0' }],
      failed: [{ package: 'connector-throws', reason: 'the entry ./index.js threw on import: boom' }],
    });
  });

  test('loadPack gives the connectors by key and the failures', async () => {
    const folder = await track(
      npmFolder([
        { name: 'connector-beta', entry: connectorSource('beta') },
        {
          name: 'connector-old-sdk',
          plugboard: { connector: './index.js', sdk: '^9.0.0' },
          entry: connectorSource('old'),
        },
      ]),
    );
    const pack = await loadPack(folder.dir);
    expect([...pack.connectors.keys()]).toEqual(['beta']);
    expect(pack.connectors.get('beta')?.name).toBe('Fixture beta');
    expect(pack.failed.map((failure) => failure.package)).toEqual(['connector-old-sdk']);
  });
});
