import type { CommandSpec, OptionSpec } from './command-spec.js';
import { ACTION_OPTIONS, CONNECTOR_KEY, CONNECTOR_PACKAGE, METRICS_PORT, PLUGIN_FOLDER } from './common-options.js';

/** `plugboard submit` and `plugboard worker`: the run queue on Redis, the runs' rows in PostgreSQL. */

export const REDIS: OptionSpec = {
  flags: '--redis <url>',
  description: 'the queue, redis://[USER:PASSWORD@]HOST:PORT[/DB] (default: $PLUGBOARD_REDIS_URL)',
};

export const POSTGRES: OptionSpec = {
  flags: '--postgres <url>',
  description:
    "the runs' rows and the fleet's state, postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $PLUGBOARD_POSTGRES_URL)",
};

export const SUBMIT: CommandSpec = {
  name: 'submit',
  summary: 'queue a run for the workers and print its records as JSON lines',
  description:
    'Check the run as `run` does (input, connection, approval: nothing is queued when it fails), record it in PostgreSQL and queue it under an id derived from the idempotency key, or from connector, action, connection and input: the same run submitted again is not queued twice. Then follow it and print its records as `run` does, or with --detach print {"id","queued"} and leave.',
  usage: '<connector> <action> [options]',
  arguments: [CONNECTOR_KEY, { name: '[action]', description: 'the action key, e.g. travel_policies.list (required)' }],
  options: [
    ...ACTION_OPTIONS.filter((option) => !option.flags.startsWith('--state')),
    {
      flags: '--idempotency-key <key>',
      description: 'a destination runs once under this key, fleet-wide; the run id is derived from it',
    },
    {
      flags: '--approval <json>',
      description:
        'the decision of someone else on this run: {"digest","requestedBy","decidedBy","decision","expiresAt"}',
    },
    REDIS,
    POSTGRES,
    { flags: '--detach', description: 'print the run id and leave, without following the run' },
  ],
  examples: [
    'plugboard submit insurance travel_policies.list --base-url https://api.example.com --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/submit.js')).submitCommand,
};

export const WORKER: CommandSpec = {
  name: 'worker',
  summary: 'take runs from the queue and run them, until SIGTERM',
  description:
    "Run the queued runs through the executor with the fleet's PostgreSQL state; the credential of each connection from PLUGBOARD_CREDENTIAL, OAuth2 token sets sealed with PLUGBOARD_CREDENTIAL_KEY (base64, 32 bytes) when set. A Redis whose maxmemory-policy is not noeviction is refused. With --plugins, a plugin's process starts on its connector's first run and serves the runs that follow until it is replaced (--recycle-after, --memory-ceiling). SIGTERM drains: the runs held finish, nothing new is taken.",
  options: [
    REDIS,
    POSTGRES,
    PLUGIN_FOLDER,
    CONNECTOR_PACKAGE,
    { flags: '--concurrency <n>', description: 'runs taken at once from each queue', default: '1' },
    {
      flags: '--sink <kind>',
      description: "postgres: write each read's records into the exactly-once sink in the fleet's PostgreSQL",
    },
    METRICS_PORT,
    { flags: '--metrics-host <address>', description: 'the address /metrics listens on (default 0.0.0.0)' },
    {
      flags: '--recycle-after <n>',
      description: "with --plugins: a plugin's process is replaced after this many runs",
      default: '1000',
    },
    {
      flags: '--memory-ceiling <mb>',
      description:
        "with --plugins: a plugin's process whose resident memory passed this many MB after a run is replaced",
      default: '256',
    },
    {
      flags: '--max-plugins <n>',
      description: "with --plugins: plugins' processes kept at once; the least recently used ends past it",
      default: '16',
    },
  ],
  examples: [
    'plugboard worker --plugins ./plugins --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard --concurrency 4',
  ],
  load: async () => (await import('../commands/worker.js')).workerCommand,
};
