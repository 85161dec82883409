import type { CommandSpec } from './command-spec.js';
import { BASE_URL, CONNECTOR_KEY, CONNECTOR_PACKAGE, environment, PLUGIN_FOLDER } from './common-options.js';
import { POSTGRES, REDIS } from './queue.js';

/** `plugboard schedule add|list|remove`: sources run every so often by the fleet, kept in PostgreSQL, ticked by BullMQ. */

const ADD: CommandSpec = {
  name: 'add',
  summary: 'run a source every so often on the fleet',
  description:
    'Check the run as `submit` does (source, input, connection settings: nothing is kept when it fails), keep the schedule in PostgreSQL as a PollTrigger and put it into BullMQ as a job scheduler. Each tick queues a run, unless the previous run of the schedule is still queued or running (the tick is skipped, said in stateMessage). The same connector, source, connection, environment and input again replaces the interval. Prints the schedule as one JSON line.',
  usage: '<connector> <source> --connection <id> --every <interval> [options]',
  arguments: [
    CONNECTOR_KEY,
    { name: '[source]', description: 'the source action key, e.g. travel_policies.list (required)' },
  ],
  options: [
    { flags: '--connection <id>', description: 'the connection each run names', required: true },
    { flags: '--every <interval>', description: 'how often: minutes, hours or days, e.g. 5m, 2h, 1d', required: true },
    { flags: '--input <json>', description: 'the source input, a JSON object', default: '{}' },
    BASE_URL,
    { flags: '--settings <json>', description: 'the connection settings, a JSON object (never a secret)' },
    environment('where the runs count'),
    CONNECTOR_PACKAGE,
    PLUGIN_FOLDER,
    REDIS,
    POSTGRES,
  ],
  examples: [
    'plugboard schedule add insurance travel_policies.list --connection conn-1 --every 5m --base-url https://api.example.com --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/schedule.js')).scheduleAddCommand,
};

const LIST: CommandSpec = {
  name: 'list',
  summary: 'print the schedules, one JSON line each',
  options: [REDIS, POSTGRES],
  examples: [
    'plugboard schedule list --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/schedule.js')).scheduleListCommand,
};

const REMOVE: CommandSpec = {
  name: 'remove',
  summary: 'remove a schedule and its job scheduler',
  description: 'Prints {"pollTriggerId","removed"}; removed is false when there was no such schedule.',
  arguments: [{ name: '<id>', description: 'the schedule, its pollTriggerId' }],
  options: [REDIS, POSTGRES],
  examples: [
    'plugboard schedule remove poll-1c0f… --redis redis://queue.internal:6379 --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/schedule.js')).scheduleRemoveCommand,
};

export const SCHEDULE: CommandSpec = {
  name: 'schedule',
  summary: 'sources the fleet runs every so often',
  description:
    'Schedules in the PollTrigger shape, kept in PostgreSQL and put into BullMQ as job schedulers by one process at a time; `plugboard worker` ticks them.',
  examples: [
    'plugboard schedule add insurance travel_policies.list --connection conn-1 --every 5m --base-url https://api.example.com',
    'plugboard schedule list',
  ],
  subcommands: [ADD, LIST, REMOVE],
};
