import type { CommandSpec } from './command-spec.js';
import { CONNECTOR_PACKAGE, CONNECTOR_KEY_OF_FOLDER, PLUGIN_FOLDER } from './common-options.js';

export const DESCRIBE: CommandSpec = {
  name: 'describe',
  summary: "list a connector's actions, or an action's inputs",
  description:
    "Read the connector's definition: without an action, each action with its mode, effect (reads or writes, billable), approval and rate budget; with one, the action's inputs with their types, whether required, defaults and examples. Text at a terminal; one JSON line with --json or when stdout is not a terminal.",
  usage: '[connector] [action] [options]',
  arguments: [CONNECTOR_KEY_OF_FOLDER, { name: '[action]', description: 'the action key, e.g. media_imports.create' }],
  options: [CONNECTOR_PACKAGE, PLUGIN_FOLDER, { flags: '--json', description: 'print it as one JSON line' }],
  examples: [
    'plugboard describe descript',
    'plugboard describe descript media_imports.create',
    'plugboard describe items.list --connector ./my-connector',
  ],
  load: async () => (await import('../commands/describe.js')).describeCommand,
};
