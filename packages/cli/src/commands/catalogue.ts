import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CatalogueReadError,
  diffCatalogues,
  formatDiff,
  generateCatalogue,
  type RecordedExample,
} from '@plugboard/catalogue';
import { excerpt } from '@plugboard/sdk';
import { recordedExamples } from '@plugboard/testing';
import { connectorPackagesIn, type FoundConnector } from '../connectors.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/** `--package KEY=NAME` pairs: the npm package shown for a connector key. */
function packageNames(pairs: string[] | undefined): Record<string, string> {
  const packages: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const cut = pair.indexOf('=');
    if (cut <= 0 || cut === pair.length - 1) throw new UsageError(`--package takes KEY=NAME, not '${excerpt(pair)}'`);
    packages[pair.slice(0, cut)] = pair.slice(cut + 1);
  }
  return packages;
}

/** The connectors to list: the keys named, the --connector packages, every one of --plugins, else this folder's package. */
async function connectorsFor({ args, values, io, messages, findConnector }: Invocation): Promise<FoundConnector[]> {
  const plugins = values.plugins as string | undefined;
  const packages = (values.connector as string[] | undefined) ?? [];
  const found: FoundConnector[] = [];
  if (plugins) found.push(...(await connectorPackagesIn(io, messages, plugins)));
  for (const key of args) found.push(await findConnector({ key }));
  for (const connector of packages) found.push(await findConnector({ connector }));
  if (found.length === 0 && !plugins) found.push(await findConnector({}));
  return found;
}

/** Each connector's package name, from its `package.json`; `--package KEY=NAME` wins. */
function packagesOf(found: readonly FoundConnector[], given: Record<string, string>): Record<string, string> {
  const packages: Record<string, string> = {};
  for (const { connector, package: name } of found) if (name) packages[connector.key] = name;
  return { ...packages, ...given };
}

/** The recordings in each connector package's `test/fixtures` (a published package often has none). */
function examplesOf(found: readonly FoundConnector[]): Record<string, Record<string, RecordedExample>> {
  const examples: Record<string, Record<string, RecordedExample>> = {};
  for (const { connector, dir } of found)
    if (dir) examples[connector.key] = recordedExamples(join(dir, 'test', 'fixtures'));
  return examples;
}

/**
 * `plugboard catalogue --out DIR [KEY...]`: writes the public catalogue of the connectors
 * named (keys, --connector packages, --plugins DIR, else this folder's package). An entry
 * that does not validate, or a folder that cannot take it, fails with exit 1.
 */
export async function catalogueCommand(invocation: Invocation): Promise<void> {
  const { values, io } = invocation;
  if (typeof values.out !== 'string')
    throw new UsageError('--out DIR is required: the folder to write the catalogue into');
  const outDir = resolve(io.cwd, values.out);
  const found = await connectorsFor(invocation);
  const catalogue = await generateCatalogue({
    connectors: found.map(({ connector }) => connector),
    outDir,
    packages: packagesOf(found, packageNames(values.package as string[] | undefined)),
    examples: examplesOf(found),
    env: io.env,
  });
  const operations = catalogue.entries.reduce((sum, entry) => sum + entry.operations.length, 0);
  const partial = catalogue.entries.filter((entry) => !entry.implemented).map((entry) => entry.key);
  io.stdout.write(
    `catalogue: ${catalogue.entries.length} connector${catalogue.entries.length === 1 ? '' : 's'}, ${operations} operation${operations === 1 ? '' : 's'}, ${catalogue.written.length} files in ${outDir} (API version ${catalogue.apiVersion}, generated ${catalogue.generatedAt})\n`,
  );
  for (const entry of catalogue.entries) {
    io.stdout.write(
      `  ${entry.key}: ${entry.operations.length} operations, ${Object.keys(entry.dataTypes ?? {}).length} data types${entry.implemented ? '' : ' (not every operation is implemented)'}\n`,
    );
  }
  if (partial.length > 0) io.stdout.write(`  implemented: false for ${partial.join(', ')}\n`);
  io.stdout.write(`  site: ${resolve(outDir, 'index.html')}\n`);
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/**
 * A catalogue folder for one side of the diff: a catalogue folder as it is; an installed
 * connector package (its folder, or its name in the plugin folder `--plugins DIR`, default
 * the working folder) has its catalogue generated into a temporary folder, under the
 * package's own name. The package is loaded in this process: name only packages you trust.
 */
async function catalogueSide(arg: string, io: Invocation['io'], pluginDir: string, temps: string[]): Promise<string> {
  const path = resolve(io.cwd, arg);
  if (await exists(join(path, 'index.json'))) return path;
  const isFolder = await exists(join(path, 'package.json'));
  const isName = !(await exists(path)) && /^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/.test(arg);
  if (!isFolder && !isName) return path; // read as a catalogue folder, which reports what is wrong with it
  const { loadPlugin, PluginLoadError } = await import('@plugboard/runtime');
  let loaded: Awaited<ReturnType<typeof loadPlugin>>;
  try {
    loaded = await loadPlugin(isFolder ? { dir: path } : { name: arg, from: pluginDir });
  } catch (error) {
    if (error instanceof PluginLoadError)
      throw new UsageError(`${arg} is neither a catalogue folder nor an installed connector package: ${error.message}`);
    throw error;
  }
  const outDir = await mkdtemp(join(tmpdir(), 'plugboard-catalogue-diff-'));
  temps.push(outDir);
  await generateCatalogue({ connectors: [loaded.connector], outDir, packages: { [loaded.key]: loaded.package } });
  return outDir;
}

/**
 * `plugboard catalogue diff OLD NEW`: exit 1 when a change breaks users (and the package
 * that needs a major changeset is named), 0 otherwise, 2 when a side is no catalogue.
 */
export async function catalogueDiffCommand({ args, values, io }: Invocation): Promise<number> {
  const pluginDir = resolve(io.cwd, (values.plugins as string | undefined) ?? '.');
  const temps: string[] = [];
  try {
    const [oldDir, newDir] = [
      await catalogueSide(args[0]!, io, pluginDir, temps),
      await catalogueSide(args[1]!, io, pluginDir, temps),
    ];
    let result: Awaited<ReturnType<typeof diffCatalogues>>;
    try {
      result = await diffCatalogues(oldDir, newDir);
    } catch (error) {
      if (error instanceof CatalogueReadError) throw new UsageError(`not a catalogue folder: ${error.message}`);
      throw error;
    }
    io.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatDiff(result));
    return result.breaking.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
