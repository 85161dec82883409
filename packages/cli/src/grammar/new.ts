import type { CommandSpec } from './command-spec.js';

export const NEW: CommandSpec = {
  name: 'new',
  summary: 'scaffold a connector package',
  description:
    'Create a connector package in a new folder: package.json (scripts, dependencies, engines), tsconfig, the connector with an incremental source and a destination (one file per action), the standard suite with its recorded fixtures, openapi.yaml for plugboard mock, and a README. It builds and its tests pass after npm install.',
  arguments: [
    {
      name: '<name>',
      description:
        'the connector key: lower case letters, digits and dashes (the package is plugboard-connector-<name>)',
    },
  ],
  options: [
    { flags: '--dir <dir>', description: 'the folder to create (default: ./<name>); it may exist if empty' },
    {
      flags: '--from-openapi <file>',
      description:
        'generate the actions, with zod schemas, from operations of this OpenAPI 3.0 or 3.1 document (JSON or YAML)',
    },
    {
      flags: '--operations <ids>',
      description:
        'with --from-openapi: the operationIds to generate, comma-separated; ID=resource.verb names its action key',
    },
  ],
  examples: [
    'plugboard new acme',
    'npx @plugboard/cli new acme --dir ./connectors/acme',
    'plugboard new acme --from-openapi ./acme-openapi.yaml --operations listProjects,getProject,sendMessage=messages.send',
  ],
  load: async () => (await import('../commands/new.js')).newCommand,
};
