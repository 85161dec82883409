import type { CommandSpec } from './command-spec.js';
import { ACTION_OPTIONS, CONNECTOR_KEY } from './common-options.js';

export const RECORD: CommandSpec = {
  name: 'record',
  summary: "record a scenario into the connector's test/fixtures",
  description:
    "Run an action against the real provider (or a local stand-in) and record every exchange, secrets redacted before anything is written, into the connector package's test/fixtures/<scenario>.json, which the standard suite replays offline. It says on stderr what it recorded (scenario, calls, records, pages, file); the records go to stdout as JSON lines when stdout is not a terminal, or with --print. An incremental source records its second scenario from where the first ended: --state DIR (the same folder for both), or --checkpoint JSON. A connection signed in with auth login (--connection-id NAME), in --state DIR or else the default state folder, records on its kept token set, renewed where it is kept; any other takes PLUGBOARD_CREDENTIAL, and with --auth-base-url URL (sandbox only) its OAuth2 tokens from a stand-in authorization server such as plugboard mock's.",
  usage: '[connector] <action> --scenario <name> [options]',
  arguments: [CONNECTOR_KEY, { name: '[action]', description: 'the action key (required)' }],
  options: [
    ...ACTION_OPTIONS,
    {
      flags: '--scenario <name>',
      description: 'the scenario name: letters, digits, dot, dash, underscore',
      required: true,
    },
    { flags: '--checkpoint <json>', description: 'resume an incremental source from this checkpoint' },
    {
      flags: '--fixtures <dir>',
      description: "write the fixture here instead of the connector package's test/fixtures",
    },
    { flags: '--expect-error <code>', description: 'the scenario is about this failure: record it rather than fail' },
    {
      flags: '--print',
      description: 'print the records as JSON lines at a terminal too (off a terminal they are always printed)',
    },
  ],
  examples: [
    'plugboard record projects.list --scenario projects-first --input \'{"limit":2}\' --state .record-state --base-url http://127.0.0.1:4010',
    'plugboard record projects.list --scenario projects-incremental --input \'{"limit":2}\' --state .record-state --base-url http://127.0.0.1:4010',
    'plugboard record status.get --scenario bad-token --expect-error authentication_failed',
    'plugboard record items.list --scenario items-first --connection-id work --base-url http://127.0.0.1:4010',
    'PLUGBOARD_CREDENTIAL=\'{"clientId":"plugboard-mock","clientSecret":"stand-in-secret"}\' plugboard record jobs.list --scenario jobs --auth-base-url http://127.0.0.1:4010/oauth --base-url http://127.0.0.1:4010/v1',
  ],
  load: async () => (await import('../commands/record.js')).recordCommand,
};
