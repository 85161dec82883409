import type { CommandSpec } from './command-spec.js';

const DIFF: CommandSpec = {
  name: 'diff',
  summary: 'compare two catalogues and find the breaking changes',
  description:
    "OLD and NEW are catalogue folders or connector packages (a package folder, or a package name installed in --plugins DIR, default this folder; loaded in this process, so trusted ones only). Exits 1 when a change breaks users and names the package that needs a major changeset, 0 otherwise, 2 when a folder's index.json disagrees with its connector files.",
  arguments: [
    { name: '<old>', description: 'the catalogue or package before' },
    { name: '<new>', description: 'the catalogue or package after' },
  ],
  options: [
    { flags: '--json', description: 'print the result as JSON' },
    { flags: '--plugins <dir>', description: 'where package names are installed (default: this folder)' },
  ],
  examples: [
    'plugboard catalogue diff ./catalogue-1.2.0 ./catalogue',
    'plugboard catalogue diff ./node_modules/plugboard-connector-acme .',
  ],
  load: async () => (await import('../commands/catalogue.js')).catalogueDiffCommand,
};

export const CATALOGUE: CommandSpec = {
  name: 'catalogue',
  summary: 'write the public catalogue (JSON, JSON Schemas, .d.ts, OpenAPI, a static site)',
  description:
    "Write the public catalogue of the named connectors (keys, found as run finds them), of --connector packages, of every connector in --plugins DIR, or of this folder's connector package: connectors/<key>.json, index.json, schemas/, types/, openapi.json and index.html. generatedAt honours SOURCE_DATE_EPOCH.",
  arguments: [{ name: '[connectors...]', description: 'connector keys' }],
  options: [
    // Not a required option: commander would ask it of `catalogue diff` too.
    { flags: '-o, --out <dir>', description: 'the folder to write into (required)' },
    { flags: '--connector <dir|package...>', description: 'connector packages: folders or installed package names' },
    { flags: '--plugins <dir>', description: 'every connector package installed in this folder' },
    {
      flags: '--package <key=name...>',
      description: "the npm package name to show for a connector key (default: its package.json's)",
    },
  ],
  examples: [
    'plugboard catalogue --out ./catalogue',
    'plugboard catalogue descript insurance --out ./catalogue',
    'plugboard catalogue diff ./old-catalogue ./new-catalogue',
  ],
  load: async () => (await import('../commands/catalogue.js')).catalogueCommand,
  subcommands: [DIFF],
};
