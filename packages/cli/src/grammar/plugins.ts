import type { CommandSpec } from './command-spec.js';

export const PLUGINS: CommandSpec = {
  name: 'plugins',
  summary: 'list the connector packages a plugin folder holds',
  description:
    'Load every package installed in DIR whose package.json has a plugboard manifest and print {"loaded": [...], "failed": [{"package", "reason"}]} as one JSON line.',
  options: [
    {
      flags: '--dir <dir>',
      description: 'the folder npm or pnpm installed the connector packages into',
      required: true,
    },
  ],
  examples: ['plugboard plugins --dir ./plugins'],
  load: async () => (await import('../commands/plugins.js')).pluginsCommand,
};
