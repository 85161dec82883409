import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import { type GeneratedAction, generateActions, type OperationChoice } from './openapi-actions.js';
import { basePathOf } from './mock/server.js';
import { authOf } from './openapi-auth.js';
import { loadOpenApiDocument, type OpenApiDocument, operationsOf } from './openapi-document.js';
import { trimmedDocument } from './openapi-trim.js';
import { exampleRecordTokens, recordTokens, STAND_IN } from './scaffold-readme.js';
import { UsageError } from './usage.js';

/**
 * A new connector package from the template in `templates/connector/`: real files, each
 * `{{token}}` replaced (the key, its title, the package name and the versions of the
 * Plugboard packages this CLI came with, so a scaffold installs what it was made for). With
 * an OpenAPI document, the actions are generated from the operations named instead of the
 * template's example pair, and the document becomes the package's stand-in.
 */

export interface ScaffoldOptions {
  /** The connector key and the last part of the package name: lower case letters, digits and dashes. */
  name: string;
  /** The folder to create; it may exist if empty. */
  dir: string;
  /** Generate the actions from these operations of an OpenAPI 3.x document. */
  openapi?: { file: string; operations: readonly OperationChoice[] };
}

export interface Scaffold {
  dir: string;
  /** The files written, relative to `dir`. */
  files: string[];
  /** The command starting its stand-in, as its README gives it. */
  mock: string;
}

const NAME = /^[a-z][a-z0-9-]{0,49}$/;
const TEMPLATE = fileURLToPath(new URL('../templates/connector/', import.meta.url));
// npm leaves a `.gitignore` out of a package, and tools would take the template's package.json
// and test file for the CLI's own: they are stored without the dot, or with `.tmpl` after.
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };
const targetName = (name: string) => RENAMED[name] ?? name.replace(/\.tmpl$/, '');
/** The template's own example actions, its recorded fixtures and its stand-in: replaced when actions are generated. */
const EXAMPLE_ONLY = /^(src\/actions\/|src\/entities\.ts$|test\/fixtures\/|openapi\.yaml$)/;

function versionOf(specifier: string): string {
  return (createRequire(import.meta.url)(specifier) as { version: string }).version;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The template's own pair: an incremental items.list and items.create, with recorded fixtures. */
function exampleTokens(name: string): Record<string, string> {
  return {
    imports:
      "import { itemsCreate } from './actions/items-create.js';\nimport { itemsList } from './actions/items-list.js';",
    actionList: 'itemsList, itemsCreate',
    authFactory: 'bearerToken',
    auth: 'bearerToken()',
    authNote: '',
    summary: JSON.stringify('Items of the API: an incremental list and a create.'),
    baseUrl: JSON.stringify(`https://api.${name}.example/v1`),
    incremental: "\n  incremental: [{ first: 'items-full', then: 'items-since' }],",
    actionSummary: '`items.list`, an incremental source, and `items.create`, a destination',
    ...exampleRecordTokens(),
  };
}

/** The stand-in's document: the chosen operations and what they reference, as the provider wrote them, in the file's format. */
function standInText(document: OpenApiDocument, actions: readonly GeneratedAction[], file: string): string {
  const trimmed = trimmedDocument(document.source, new Set(actions.map((action) => action.operation)));
  return file.endsWith('.json')
    ? `${JSON.stringify(trimmed, null, 2)}\n`
    : stringifyYaml(trimmed, { aliasDuplicateObjects: false });
}

/** The standard suite's two-run pairs of the incremental sources, as the test file's option. */
function incrementalPairs(actions: readonly GeneratedAction[]): string {
  const pairs = actions
    .filter((action) => action.incremental)
    .map((action) => `{ first: ${JSON.stringify(action.key)}, then: ${JSON.stringify(`${action.key}-since`)} }`);
  return pairs.length > 0 ? `\n  incremental: [${pairs.join(', ')}],` : '';
}

export async function scaffoldConnector({ name, dir, openapi }: ScaffoldOptions): Promise<Scaffold> {
  if (!NAME.test(name)) {
    throw new UsageError(
      `<name> '${name}' must start with a lower case letter and hold only lower case letters, digits and dashes (at most 50): it is the connector key and part of the package name`,
    );
  }
  if (existsSync(dir) && (await readdir(dir)).length > 0)
    throw new UsageError(`${dir} is not empty: scaffold into a new or empty folder (--dir)`);
  const title = name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  const generated: Array<[string, string]> = [];
  let tokens = exampleTokens(name);
  const standInFile = openapi && extname(openapi.file) === '.json' ? 'openapi.json' : 'openapi.yaml';
  if (openapi) {
    // Everything is checked before anything is written.
    const document = await loadOpenApiDocument(openapi.file);
    const connector = generateActions(document, openapi.operations);
    const chosen = new Set(connector.actions.map((action) => action.operation));
    const operations = operationsOf(document)
      .filter(({ method, path }) => chosen.has(`${method} ${path}`))
      .map(({ operation }) => operation);
    const auth = authOf(document, operations);
    const server = document.servers?.[0]?.url;
    const info = (document.source.info ?? {}) as { title?: unknown };
    tokens = {
      imports: connector.actions
        .map((action) => `import { ${action.name} } from './actions/${action.key}.js';`)
        .join('\n'),
      actionList: connector.actions.map((action) => action.name).join(', '),
      authFactory: auth.factory,
      auth: auth.call,
      authNote: auth.note.map((line) => `\n${line}`).join(''),
      summary: JSON.stringify(
        `${typeof info.title === 'string' ? info.title.slice(0, 100) : title}: ${connector.actions.map((action) => action.key).join(', ')}.`,
      ),
      baseUrl: JSON.stringify(server && /^https?:\/\//.test(server) ? server : `https://api.${name}.example`),
      incremental: incrementalPairs(connector.actions),
      actionSummary: connector.actions.map((action) => `\`${action.key}\` (${action.direction})`).join(', '),
      ...recordTokens(connector.actions, `${STAND_IN}${basePathOf(document)}`, auth),
    };
    generated.push(
      ['src/entities.ts', connector.entities],
      ...(connector.listing ? [['src/listing.ts', connector.listing] as [string, string]] : []),
      ...connector.actions.map((action) => [action.file, action.source] as [string, string]),
    );
    generated.push([standInFile, standInText(document, connector.actions, standInFile)]);
  }
  const values: Record<string, string> = {
    ...tokens,
    key: name,
    title,
    standIn: standInFile,
    package: `plugboard-connector-${name}`,
    cliVersion: versionOf('../package.json'),
    sdkVersion: versionOf('@plugboard/sdk/package.json'),
    testingVersion: versionOf('@plugboard/testing/package.json'),
  };
  const files: string[] = [];
  // Every source file reads alike, filled-in tokens and generated code included: laid out by prettier.
  const { format } = await import('prettier');
  const write = async (target: string, text: string) => {
    const source = target.endsWith('.ts')
      ? await format(text, { parser: 'typescript', printWidth: 120, singleQuote: true })
      : text;
    await mkdir(join(dir, dirname(target)), { recursive: true });
    await writeFile(join(dir, target), source, { flag: 'wx' });
    files.push(target);
  };
  for (const file of await filesUnder(TEMPLATE)) {
    if (openapi && EXAMPLE_ONLY.test(file)) continue;
    const text = (await readFile(join(TEMPLATE, file), 'utf8')).replace(
      /\{\{(\w+)\}\}/g,
      (whole, token: string) => values[token] ?? whole,
    );
    await write(join(dirname(file), targetName(basename(file))), text);
  }
  for (const [file, text] of generated) await write(file, text);
  if (openapi) await mkdir(join(dir, 'test', 'fixtures'), { recursive: true });
  return {
    dir,
    files: files.sort(),
    mock: `${tokens.mockEnv}npx plugboard mock ${standInFile} --port 4010${tokens.mockOptions}`,
  };
}
