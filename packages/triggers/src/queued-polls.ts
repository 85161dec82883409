import { addSchedule, listSchedules, removeSchedule, type Schedule } from '@plugboard/worker';
import type pg from 'pg';
import type { PollSettings } from './poll-config.js';
import type { PollTriggerState } from './poll-state.js';
import { type PollScheduler, pausedState } from './polls.js';
import { TRIGGER_POLLS_FLOW } from './queue-options.js';
import type { QueueChecks } from './queued-runs.js';

/**
 * The poll triggers in queued mode: each active one registered as a schedule of the worker fleet
 * (`addSchedule`: a row in PostgreSQL and a BullMQ job scheduler), whose ticks the workers turn
 * into runs on the run queue, instead of the embedded receiver's timer. A schedule is named by its
 * pollTriggerId and belongs to the flow `TRIGGER_POLLS_FLOW`, which is how `listQueuedPolls`
 * tells them from other schedules. One schedule per stream (connector, action, connection,
 * environment, input): two poll triggers on one stream share it, the last registered naming it.
 * A schedule of that flow that no active poll names when a receiver starts is removed.
 */

export interface QueuedPollsTarget extends QueueChecks {
  redis: string;
  postgres: pg.Pool;
}

/** A schedule as a poll trigger's state: what the worker's schedule knows of it. */
export function scheduleState(schedule: Schedule): PollTriggerState {
  const skipped = schedule.state === 'skipped';
  return {
    pollTriggerId: schedule.name,
    kind: 'poll',
    status: 'active',
    state: schedule.state === 'failed' ? 'failing' : 'active',
    stateMessage: schedule.stateMessage,
    intervalMinutes: schedule.intervalMinutes,
    environment: schedule.environment,
    connectionId: schedule.connectionId,
    operationKey: `${schedule.connector}/${schedule.operationKey}`,
    lastCheckedAt: schedule.lastCheckedAt,
    nextCheckAt: schedule.nextCheckAt,
    lastExecutionId: schedule.lastRunId,
    lastRecordCount: null,
    skippedChecks: skipped ? 1 : 0,
    lastSkippedAt: skipped ? schedule.lastCheckedAt : null,
  };
}

function register(poll: PollSettings, target: QueuedPollsTarget): Promise<Schedule> {
  const { run } = poll;
  return addSchedule({
    ...target,
    connector: run.connector,
    source: run.action,
    input: run.input ?? {},
    connection: run.connection,
    environment: poll.environment,
    intervalMinutes: poll.intervalMinutes,
    name: poll.pollTriggerId,
    flowId: TRIGGER_POLLS_FLOW,
  });
}

/**
 * Removes the receivers' schedules (of the flow `TRIGGER_POLLS_FLOW`) that no active poll of the
 * configuration names: a poll taken out of it, or no longer active, stops being polled.
 */
async function removeOthers(active: ReadonlySet<string>, target: QueuedPollsTarget): Promise<void> {
  for (const schedule of await listSchedules({ postgres: target.postgres }))
    if (schedule.flowId === TRIGGER_POLLS_FLOW && !active.has(schedule.name))
      await removeSchedule(target, schedule.pollTriggerId);
}

/**
 * The polls as schedules: registered by `start` (a poll that cannot be is a typed error then), the
 * receivers' schedules no active poll names then removed; nothing in process.
 */
export function queuedPolls(polls: readonly PollSettings[], target: QueuedPollsTarget): PollScheduler {
  let states: PollTriggerState[] = [];
  return {
    async start() {
      const registered: PollTriggerState[] = [];
      for (const poll of polls)
        registered.push(
          poll.status === 'active'
            ? scheduleState(await register(poll, target))
            : pausedState(poll, 'not polled: its status is not active'),
        );
      // After registering: a schedule two polls shared is named by the one still configured by now.
      await removeOthers(
        new Set(polls.filter((poll) => poll.status === 'active').map((poll) => poll.pollTriggerId)),
        target,
      );
      states = registered;
    },
    states: () => states.map((state) => ({ ...state })),
    settled: async () => undefined,
    stop: async () => undefined,
  };
}

/** The poll triggers' schedules as they are now in the fleet's PostgreSQL, by pollTriggerId. */
export async function listQueuedPolls(options: { postgres: string | pg.Pool }): Promise<PollTriggerState[]> {
  const schedules = await listSchedules({ postgres: options.postgres });
  return schedules
    .filter((schedule) => schedule.flowId === TRIGGER_POLLS_FLOW)
    .map((schedule) => scheduleState(schedule))
    .sort((a, b) => a.pollTriggerId.localeCompare(b.pollTriggerId));
}
