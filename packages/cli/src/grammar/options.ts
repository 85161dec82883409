import type { CommandSpec } from './command-spec.js';
import {
  AUTH_BASE_URL,
  BASE_URL,
  CONNECTION_ID,
  CONNECTION_SETTINGS,
  CONNECTOR_PACKAGE,
  CONNECTOR_KEY,
  environment,
  PLUGIN_FOLDER,
  SIGNED_IN_STATE,
} from './common-options.js';

export const OPTIONS: CommandSpec = {
  name: 'options',
  summary: "list the options of an action's input field as JSON lines",
  description:
    'List one page of the values an input field may take (a field with options, such as a project id), through the same connection, credential and pipeline as run. Each option is a JSON line {"value","label","description"?} on stdout; when there are more, a last line {"nextCursor"} gives the --cursor of the next page.',
  usage: '[connector] <action> <field> [options]',
  arguments: [
    CONNECTOR_KEY,
    { name: '[action]', description: 'the action key, e.g. media_imports.create (required)' },
    { name: '[field]', description: 'the input field, e.g. project_id (required)' },
  ],
  options: [
    {
      flags: '--search <text>',
      description: 'only the options that match this text (the provider searches where it can)',
    },
    { flags: '--cursor <cursor>', description: 'the page after the one whose last line gave this nextCursor' },
    BASE_URL,
    AUTH_BASE_URL,
    environment('the network policy it connects under'),
    CONNECTION_SETTINGS,
    CONNECTION_ID,
    CONNECTOR_PACKAGE,
    PLUGIN_FOLDER,
    SIGNED_IN_STATE,
  ],
  examples: [
    'plugboard options descript media_imports.create project_id --search interview',
    'plugboard options descript agent_edits.create model --base-url http://127.0.0.1:4010',
  ],
  load: async () => (await import('../commands/options.js')).optionsCommand,
};
