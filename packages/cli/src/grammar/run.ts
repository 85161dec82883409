import type { CommandSpec } from './command-spec.js';
import { ACTION_OPTIONS, CONNECTOR_KEY } from './common-options.js';

export const RUN: CommandSpec = {
  name: 'run',
  summary: 'run an action and print its records as JSON lines',
  description:
    'Run one action through the executor, as the platform runs it: the input is validated before anything is sent, an action that needs approval here runs only with a decision by someone else, records go to stdout as JSON lines, progress and messages to stderr.',
  usage: '[connector] <action> [options]',
  arguments: [CONNECTOR_KEY, { name: '[action]', description: 'the action key, e.g. projects.list (required)' }],
  options: [
    ...ACTION_OPTIONS,
    {
      flags: '--idempotency-key <key>',
      description: 'a destination runs once under this key; a repeat returns the first result without sending',
    },
    {
      flags: '--approval <json>',
      description:
        'the decision of someone else on this run: {"digest","requestedBy","decidedBy","decision","expiresAt"}',
    },
  ],
  examples: [
    'plugboard run descript projects.list --input \'{"limit":20}\' --state ./state',
    'plugboard run projects.list --connector ./my-connector --base-url http://127.0.0.1:4010',
    'plugboard run descript media_imports.create --environment production --input \'{"project_name":"Demo","add_media":{"a.mp4":{"url":"https://example.com/a.mp4"}}}\' --idempotency-key import-1',
  ],
  load: async () => (await import('../commands/run.js')).runCommand,
};
