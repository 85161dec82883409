import type { CommandSpec, OptionSpec } from './command-spec.js';

const STATE: OptionSpec = {
  flags: '--state <dir>',
  description:
    'the state folder (default: $PLUGBOARD_STATE, else $XDG_STATE_HOME/plugboard, else ~/.local/state/plugboard)',
};
const POSTGRES: OptionSpec = {
  flags: '--postgres <url>',
  description: "the fleet's PostgreSQL instead of a state folder, postgres://USER:PASSWORD@HOST:PORT/DATABASE",
};
const KEY = { name: '<key>', description: 'the idempotency key' };

const SHOW: CommandSpec = {
  name: 'show',
  summary: 'print what is kept under a key',
  arguments: [KEY],
  options: [STATE, POSTGRES],
  examples: [
    'plugboard idempotency show import-1 --state ./state',
    'plugboard idempotency show policy-1 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/idempotency.js')).showCommand,
};

const SETTLE: CommandSpec = {
  name: 'settle',
  summary: 'settle a key left running or uncertain',
  description:
    'Once the provider showed what happened: failed releases the key (the next run with it runs again); succeeded keeps --result (default null), which the next run returns without sending anything. Refused for a key that succeeded, and for a running key younger than --min-age unless --force. Who, when, why and what the key was before are kept with it.',
  arguments: [KEY],
  options: [
    {
      flags: '--as <outcome>',
      description: 'what the provider shows the run did',
      choices: ['succeeded', 'failed'],
      required: true,
    },
    { flags: '--by <name>', description: 'who decides', required: true },
    { flags: '--reason <text>', description: 'why, e.g. what the provider shows', required: true },
    { flags: '--result <json>', description: 'with --as succeeded: the result the next run returns' },
    {
      flags: '--min-age <duration>',
      description: 'refuse a running key younger than this: 90s, 15m, 2h, 1d (default 1h)',
    },
    { flags: '--force', description: 'settle a running key however young' },
    STATE,
    POSTGRES,
  ],
  examples: [
    'plugboard idempotency settle import-1 --as failed --by ana --reason "the provider shows no import" --state ./state',
  ],
  load: async () => (await import('../commands/idempotency.js')).settleCommand,
};

export const IDEMPOTENCY: CommandSpec = {
  name: 'idempotency',
  summary: 'look at and settle idempotency keys',
  description:
    "What is kept under an idempotency key, and an operator's decision on a key whose run was left running (its process died) or uncertain.",
  subcommands: [SHOW, SETTLE],
};
