import type { CommandSpec } from './command-spec.js';

export const SIMULATE: CommandSpec = {
  name: 'simulate',
  summary: 'start a provider simulator of the Plugboard repository',
  description:
    'Start the local simulator of a pack connector on 127.0.0.1 and print {"provider","url","credential"} as one JSON line; runs until interrupted. Available inside the Plugboard repository.',
  arguments: [{ name: '<provider>', description: 'descript or insurance' }],
  options: [
    { flags: '--port <n>', description: 'the port (default: a free one)', default: '0' },
    { flags: '--seed <n>', description: 'the seed of the simulated data' },
    { flags: '--size <n>', description: 'how many projects the Descript simulator serves' },
    {
      flags: '--openapi <path>',
      description: "the provider's OpenAPI document the Descript simulator checks requests against",
    },
  ],
  examples: ['plugboard simulate descript --port 4010'],
  simulatorsOnly: true,
  load: async () => (await import('../commands/simulate.js')).simulateCommand,
};
