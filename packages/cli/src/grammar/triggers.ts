import type { CommandSpec, OptionSpec } from './command-spec.js';
import { CONNECTOR_PACKAGE, METRICS_PORT, PLUGIN_FOLDER } from './common-options.js';

const REDIS: OptionSpec = {
  flags: '--redis <url>',
  description:
    "queued mode, with --postgres: the worker fleet's run queue, redis://[USER:PASSWORD@]HOST:PORT[/DB]; the runs of accepted deliveries are queued there and the polls are its schedules",
};

const POSTGRES: OptionSpec = {
  flags: '--postgres <url>',
  description:
    "queued mode, with --redis: the fleet's PostgreSQL (plugboard db migrate), postgres://USER:PASSWORD@HOST:PORT/DATABASE; receipts and dedupe are kept there, shared by every receiver on it",
};

/** `plugboard triggers serve|deliveries|polls`: a receiver of signed deliveries and of polls, its receipts and poll states. */

const STATE: OptionSpec = {
  flags: '--state <dir>',
  description:
    "receipts, accepted deliveries and poll states are kept in DIR/triggers, the runs' idempotency keys and checkpoints in DIR (default: PLUGBOARD_STATE, else XDG_STATE_HOME, else HOME)",
};

const SERVE: CommandSpec = {
  name: 'serve',
  summary: 'receive signed deliveries for the triggers of a configuration file, until Ctrl+C',
  description:
    'Accept POST /api/connect/triggers/{publicId} for each trigger of --config ({"triggers":[Trigger]}, the platform\'s Trigger shape with secretEnv and previousSecretEnv naming the environment variables that hold its secrets, and an optional run: {connector, action, connection}). Before anything else each delivery meets, in this order: the trigger (404 unknown_trigger), its status (403 disabled), maxDeliveriesPerMinute (429 rate_limited, Retry-After), maxBodyBytes while reading (413 too_large), the signature and timestamp of rule 13 (401 signature_mismatch or outside_tolerance, 400 malformed), then its event id (200 duplicate, with the first delivery\'s ids). An accepted delivery is kept and, with run, starts the action with {records} as its input; the credential comes from PLUGBOARD_CREDENTIAL. With --redis and --postgres (both or neither) it runs in queued mode: receipts and dedupe in PostgreSQL (receivers behind a balancer answer a repeated event id alike), each run queued on the worker fleet\'s run queue under the delivery\'s executionId, each active poll registered as a schedule of the fleet. Each active poll of --config ({"polls":[PollTrigger]}, with a run naming a source action: {connector, action, connection, input}) reads its source from the last checkpoint every intervalMinutes, never two at once per stream. Prints one JSON line per trigger with the URL senders post to, then one per poll with its state, once listening.',
  options: [
    { flags: '--config <file>', description: 'the triggers, a JSON file (never a secret in it)', required: true },
    { flags: '--port <n>', description: 'the port (0: a free one)', default: '0' },
    { flags: '--host <address>', description: 'the address to listen on', default: '127.0.0.1' },
    STATE,
    REDIS,
    POSTGRES,
    CONNECTOR_PACKAGE,
    PLUGIN_FOLDER,
    METRICS_PORT,
    { flags: '--metrics-host <address>', description: 'the address /metrics listens on (default: --host)' },
    {
      flags: '--receipt-retention-days <n>',
      description:
        'remove receipts N days old (1 to 3650), a day at a time, when listening and hourly after (default: kept until removed)',
    },
  ],
  examples: [
    'plugboard triggers serve --config triggers.json --port 8080 --state .plugboard',
    'plugboard triggers serve --config triggers.json --port 8080 --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => {
    // Before the receiver loads: its young generation is kept at the size it has then.
    (await import('../young-generation.js')).boundYoungGeneration();
    return (await import('../commands/triggers.js')).serveCommand;
  },
};

const DELIVERIES: CommandSpec = {
  name: 'deliveries',
  summary: 'print the receipts of the deliveries received, one JSON line each, oldest first',
  description:
    "Each receipt in the platform's TriggerDelivery shape with its triggerId: status (accepted, duplicate, refused), reasonCode, httpStatus, eventId, eventType, payloadSha256, sizeBytes, recordCount, executionId, receivedAt. Never a body or a secret.",
  options: [
    STATE,
    { ...POSTGRES, description: 'read the receipts receivers in queued mode kept in this PostgreSQL instead' },
    { flags: '--trigger <id>', description: 'only the receipts of this triggerId' },
  ],
  examples: ['plugboard triggers deliveries --state .plugboard --trigger trg_orders'],
  load: async () => (await import('../commands/triggers.js')).deliveriesCommand,
};

const POLLS: CommandSpec = {
  name: 'polls',
  summary: 'print the state of each poll trigger, one JSON line each',
  description:
    "Each poll trigger as the receiver keeps it, in the platform's PollTrigger fields: state (active, paused, failing), stateMessage (the typed error code of a failed poll, or a skipped check), lastCheckedAt, nextCheckAt, with intervalMinutes, lastExecutionId, lastRecordCount and skippedChecks. Never a secret.",
  options: [
    STATE,
    { ...POSTGRES, description: 'read the schedules receivers in queued mode registered in this PostgreSQL instead' },
    { flags: '--poll <id>', description: 'only the poll trigger of this pollTriggerId' },
  ],
  examples: ['plugboard triggers polls --state .plugboard'],
  load: async () => (await import('../commands/triggers.js')).pollsCommand,
};

export const TRIGGERS: CommandSpec = {
  name: 'triggers',
  summary: 'receive signed deliveries and run polls that start runs; list receipts and poll states',
  examples: [
    'plugboard triggers serve --config triggers.json --port 8080',
    'plugboard triggers deliveries',
    'plugboard triggers polls',
  ],
  subcommands: [SERVE, DELIVERIES, POLLS],
};
