import type { CommandSpec } from './command-spec.js';
import { CONNECTOR_PACKAGE, CONNECTOR_KEY, PLUGIN_FOLDER } from './common-options.js';

export const REPLAY: CommandSpec = {
  name: 'replay',
  summary: 'replay a recorded scenario with the network closed',
  description:
    'Run a recorded scenario again from its fixture with the network closed, as the standard suite does, and print its records as JSON lines. A request the recording does not hold, or a recorded request not made, fails it.',
  usage: '[connector] --scenario <name> [options]',
  arguments: [CONNECTOR_KEY],
  options: [
    { flags: '--scenario <name>', description: 'the recorded scenario', required: true },
    { flags: '--fixtures <dir>', description: "where the fixture is (default: the connector package's test/fixtures)" },
    CONNECTOR_PACKAGE,
    PLUGIN_FOLDER,
  ],
  examples: [
    'plugboard replay --scenario items-full',
    'plugboard replay descript --scenario status --fixtures ./fixtures',
  ],
  load: async () => (await import('../commands/replay.js')).replayCommand,
};
