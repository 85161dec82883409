import type { CommandSpec } from './command-spec.js';

export const TEST: CommandSpec = {
  name: 'test',
  summary: "run the connector package's own tests (its standard suite)",
  description:
    'Run the test script of the connector package (npm test in its folder), which replays the recorded fixtures through the standard suite with the network closed and a token set that never expires, so no connection is used (--connection-id is refused: record on a connection with plugboard record); exits with its code.',
  options: [
    { flags: '--connector <dir>', description: "the connector package folder (default: this folder's package)" },
    {
      flags: '--connection-id <name>',
      description: 'not taken: the suite uses no connection (record on one with plugboard record --connection-id NAME)',
    },
  ],
  examples: ['plugboard test', 'plugboard test --connector ./my-connector'],
  load: async () => (await import('../commands/test.js')).testCommand,
};
