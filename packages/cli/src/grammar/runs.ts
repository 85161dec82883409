import type { CommandSpec, OptionSpec } from './command-spec.js';

/** `plugboard runs list|show|cancel`: the rows of the fleet's runs, and cancelling one. */

const POSTGRES: OptionSpec = {
  flags: '--postgres <url>',
  description: "the runs' rows, postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $PLUGBOARD_POSTGRES_URL)",
};
const JSON_OUTPUT: OptionSpec = {
  flags: '--json',
  description: 'print JSON lines (also when stdout is not a terminal)',
};
const RUN_ID = { name: '<id>', description: 'the run id, as submit printed it' };

const LIST: CommandSpec = {
  name: 'list',
  summary: 'list the runs, newest first',
  options: [
    POSTGRES,
    {
      flags: '--status <status>',
      description: 'only runs with this status',
      choices: ['queued', 'running', 'succeeded', 'failed', 'cancelled'],
    },
    { flags: '--limit <n>', description: 'at most this many runs, 1 to 1000', default: '50' },
    JSON_OUTPUT,
  ],
  examples: ['plugboard runs list --status running --postgres postgres://plugboard@db.internal:5432/plugboard'],
  load: async () => (await import('../commands/runs.js')).listCommand,
};

const SHOW: CommandSpec = {
  name: 'show',
  summary: 'show one run, and what to check when a write was left running',
  description:
    "The run's row in the platform's Execution shape. With the queue's Redis, a write left running by a worker that stopped says what to check: the provider, then `plugboard idempotency show` and `settle` with its key.",
  arguments: [RUN_ID],
  options: [
    POSTGRES,
    {
      flags: '--redis <url>',
      description: 'the queue, to tell whether a worker still holds the run (default: $PLUGBOARD_REDIS_URL)',
    },
    JSON_OUTPUT,
  ],
  examples: [
    'plugboard runs show key-3f2a... --postgres postgres://plugboard@db.internal:5432/plugboard --redis redis://queue.internal:6379',
  ],
  load: async () => (await import('../commands/runs.js')).showCommand,
};

const CANCEL: CommandSpec = {
  name: 'cancel',
  summary: 'cancel a queued or running run',
  description:
    'A queued run is taken off its queue, status cancelled. A running run is stopped through its signal by the worker running it, which marks it cancelled. A run that ended is left as it is.',
  arguments: [RUN_ID],
  options: [
    POSTGRES,
    {
      flags: '--redis <url>',
      description: 'the queue, redis://[USER:PASSWORD@]HOST:PORT[/DB] (default: $PLUGBOARD_REDIS_URL)',
    },
    JSON_OUTPUT,
  ],
  examples: [
    'plugboard runs cancel run-9c1e... --postgres postgres://plugboard@db.internal:5432/plugboard --redis redis://queue.internal:6379',
  ],
  load: async () => (await import('../commands/runs.js')).cancelCommand,
};

export const RUNS: CommandSpec = {
  name: 'runs',
  summary: "look at and cancel the fleet's runs",
  description: 'The runs that submit queued, as their rows in PostgreSQL say, and cancelling one.',
  examples: [
    'plugboard runs list --status running',
    'plugboard runs cancel run-9c1e... --redis redis://queue.internal:6379',
  ],
  subcommands: [LIST, SHOW, CANCEL],
};
