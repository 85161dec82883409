import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CatalogueReadError, diffCatalogues, formatDiff, generateCatalogue } from '@plugboard/catalogue';
import type { Connector } from '@plugboard/sdk';
import type { CliIo } from '../io.js';

const CATALOGUE_USAGE = `Usage:
  plugboard catalogue --out DIR [--package KEY=NAME ...]
      Write the public catalogue of every connector in the pack into DIR:
      connectors/<key>.json, index.json, schemas/, types/, openapi.json, index.html.
      generatedAt honours SOURCE_DATE_EPOCH.
  plugboard catalogue diff OLD NEW [--json] [--plugins DIR]
      OLD and NEW are catalogue folders or installed connector packages (a
      package folder, or a package name installed in --plugins DIR, default
      the working folder; loaded in this process, so trusted ones only).
      Compare the connector files and JSON Schemas of the two catalogues;
      exit 1 when a change breaks users (and name the package that needs a
      major changeset), 0 otherwise, 2 when a folder's index.json disagrees
      with its connector files.
`;

class CatalogueUsageError extends Error {}

function generateArgs(argv: string[]): { out: string; packages: Record<string, string> } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { out: { type: 'string', short: 'o' }, package: { type: 'string', multiple: true } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new CatalogueUsageError(`unexpected argument '${positionals[0]}'`);
  if (!values.out) throw new CatalogueUsageError('--out DIR is required');
  const packages: Record<string, string> = {};
  for (const pair of values.package ?? []) {
    const cut = pair.indexOf('=');
    if (cut <= 0 || cut === pair.length - 1) throw new CatalogueUsageError(`--package takes KEY=NAME, not '${pair}'`);
    packages[pair.slice(0, cut)] = pair.slice(cut + 1);
  }
  return { out: values.out, packages };
}

async function generate(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<number> {
  const { out, packages } = generateArgs(argv);
  const outDir = resolve(io.cwd, out);
  try {
    const catalogue = await generateCatalogue({ connectors: pack, outDir, packages, env: io.env });
    const operations = catalogue.entries.reduce((sum, entry) => sum + entry.operations.length, 0);
    const partial = catalogue.entries.filter((entry) => !entry.implemented).map((entry) => entry.key);
    io.stdout.write(
      `catalogue: ${catalogue.entries.length} connector${catalogue.entries.length === 1 ? '' : 's'}, ${operations} operation${operations === 1 ? '' : 's'}, ${catalogue.written.length} files in ${outDir} (API version ${catalogue.apiVersion}, generated ${catalogue.generatedAt})\n`,
    );
    for (const entry of catalogue.entries) {
      io.stdout.write(`  ${entry.key}: ${entry.operations.length} operations, ${Object.keys(entry.dataTypes ?? {}).length} data types${entry.implemented ? '' : ' (not every operation is implemented)'}\n`);
    }
    if (partial.length > 0) io.stdout.write(`  implemented: false for ${partial.join(', ')}\n`);
    io.stdout.write(`  site: ${resolve(outDir, 'index.html')}\n`);
    return 0;
  } catch (error) {
    // An invalid entry, a folder that cannot take the catalogue, a schema zod cannot convert.
    io.stderr.write(`plugboard catalogue: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
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
async function catalogueSide(arg: string, io: CliIo, pluginDir: string, temps: string[]): Promise<string> {
  const path = resolve(io.cwd, arg);
  if (await exists(join(path, 'index.json'))) return path;
  const isFolder = await exists(join(path, 'package.json'));
  const isName = !(await exists(path)) && /^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/.test(arg);
  if (!isFolder && !isName) return path; // read as a catalogue folder, which reports what is wrong with it
  const { loadPlugin, PluginLoadError } = await import('@plugboard/runtime');
  let loaded;
  try {
    loaded = await loadPlugin(isFolder ? { dir: path } : { name: arg, from: pluginDir });
  } catch (error) {
    if (error instanceof PluginLoadError) throw new CatalogueUsageError(`${arg} is neither a catalogue folder nor an installed connector package: ${error.message}`);
    throw error;
  }
  const outDir = await mkdtemp(join(tmpdir(), 'plugboard-catalogue-diff-'));
  temps.push(outDir);
  await generateCatalogue({ connectors: [loaded.connector], outDir, packages: { [loaded.key]: loaded.package } });
  return outDir;
}

async function diff(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, plugins: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 2) throw new CatalogueUsageError('diff takes two catalogue folders or installed connector packages: OLD NEW');
  const pluginDir = resolve(io.cwd, values.plugins ?? '.');
  const temps: string[] = [];
  try {
    const [oldDir, newDir] = [await catalogueSide(positionals[0] as string, io, pluginDir, temps), await catalogueSide(positionals[1] as string, io, pluginDir, temps)];
    let result;
    try {
      result = await diffCatalogues(oldDir, newDir);
    } catch (error) {
      if (error instanceof CatalogueReadError) throw new CatalogueUsageError(`not a catalogue folder: ${error.message}`);
      throw error;
    }
    io.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatDiff(result));
    return result.breaking.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

/**
 * `plugboard catalogue ...`: `--out DIR` generates, `diff OLD NEW` compares.
 * Returns the exit code: 0 done (no breaking change), 1 breaking changes or an
 * invalid entry, 2 usage error (the usage on stderr).
 */
export async function catalogueCommand(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<number> {
  try {
    if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.stdout.write(CATALOGUE_USAGE);
      return 0;
    }
    if (argv[0] === 'diff') return await diff(argv.slice(1), io);
    return await generate(argv, io, pack);
  } catch (error) {
    if (error instanceof CatalogueUsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`plugboard catalogue: ${(error as Error).message}\n${CATALOGUE_USAGE}`);
      return 2;
    }
    throw error;
  }
}
