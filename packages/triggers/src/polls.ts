import { randomUUID } from 'node:crypto';
import { ConnectorError, excerpt, type LogSink } from '@plugboard/sdk';
import { type Clock, streamKey, type Timer } from '@plugboard/sdk/host';
import type { PollSettings } from './poll-config.js';
import type { StartPoll } from './poll-start.js';
import { recordsSaid } from './run-start.js';
import { type PollStateStore, type PollTriggerState, pollStateStore } from './poll-state.js';

/**
 * The poll triggers' timer: each active poll falls due every `intervalMinutes` on the receiver's
 * clock, from the `nextCheckAt` its state kept (a restart neither polls at once nor loses a
 * check: one that fell due while nothing ran is due at once). Never two polls of one stream at
 * once: a check that falls due while one runs is skipped, counted and said in the state, and
 * the next is due an interval later. A failed poll leaves the state `failing` with its error's
 * code, and the next one still comes. Each change of a state is written to the state folder in
 * order, before `settled` resolves.
 */

export interface PollScheduler {
  /** Reads the kept states and sets each active poll's timer. */
  start(): Promise<void>;
  /** Each poll trigger's state as it is now. */
  states(): PollTriggerState[];
  /** Resolves once no poll runs and every state is on disk. */
  settled(): Promise<void>;
  /** No poll falls due any more; waits for those running (or aborts them). */
  stop(options?: { abort?: boolean }): Promise<void>;
}

interface Entry {
  settings: PollSettings;
  state: PollTriggerState;
  stream: string;
  timer?: Timer;
  writes: Promise<void>;
}

export interface PollSchedulerOptions {
  stateDir: string;
  clock: Clock;
  /** Without it nothing is polled: every poll is `paused`. */
  startPoll?: StartPoll;
  log: LogSink;
}

const MINUTE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A check due at `at` skipped: counted, and said while nothing worse is. */
function markSkipped(state: PollTriggerState, at: number): void {
  state.skippedChecks += 1;
  state.lastSkippedAt = iso(at);
  if (state.state === 'active')
    state.stateMessage = `the check due at ${iso(at)} was skipped: a poll of the same stream was still running`;
}

function initialState(settings: PollSettings, kept: PollTriggerState | undefined): PollTriggerState {
  const { run } = settings;
  return {
    pollTriggerId: settings.pollTriggerId,
    kind: 'poll',
    status: settings.status,
    state: kept?.state === 'failing' ? 'failing' : 'active',
    stateMessage: kept?.state === 'failing' ? kept.stateMessage : null,
    intervalMinutes: settings.intervalMinutes,
    environment: settings.environment,
    connectionId: run.connection.id,
    operationKey: `${run.connector}/${run.action}`,
    lastCheckedAt: kept?.lastCheckedAt ?? null,
    nextCheckAt: kept?.nextCheckAt ?? null,
    lastExecutionId: kept?.lastExecutionId ?? null,
    lastRecordCount: kept?.lastRecordCount ?? null,
    skippedChecks: kept?.skippedChecks ?? 0,
    lastSkippedAt: kept?.lastSkippedAt ?? null,
  };
}

/** A poll that is not polled, and why. */
export function pausedState(settings: PollSettings, why: string): PollTriggerState {
  return { ...initialState(settings, undefined), state: 'paused', stateMessage: why, nextCheckAt: null };
}

const streamOf = ({ run, environment }: PollSettings) =>
  streamKey({
    connector: run.connector,
    action: run.action,
    connectionId: run.connection.id,
    environment,
    input: run.input ?? {},
  });

export function pollScheduler(polls: readonly PollSettings[], options: PollSchedulerOptions): PollScheduler {
  const { clock, startPoll, log } = options;
  const store: PollStateStore = pollStateStore(options.stateDir);
  const entries: Entry[] = [];
  const running = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  const say = (level: 'info' | 'error', message: string, fields: Record<string, unknown>) =>
    log({ level, message, time: iso(clock.now()), ...fields });
  const save = (entry: Entry) => {
    const snapshot = { ...entry.state };
    entry.writes = entry.writes
      .then(() => store.write(snapshot))
      .catch((error: unknown) =>
        say('error', `poll ${snapshot.pollTriggerId}: its state cannot be kept: ${String(error)}`, {
          pollTriggerId: snapshot.pollTriggerId,
        }),
      );
  };
  const schedule = (entry: Entry, at: number) => {
    entry.state.nextCheckAt = iso(at);
    entry.timer = clock.setTimer(() => due(entry, at), at - clock.now());
  };

  function due(entry: Entry, at: number) {
    if (stopping.signal.aborted || entry.timer === undefined) return;
    const now = clock.now();
    const interval = entry.settings.intervalMinutes * MINUTE_MS;
    schedule(entry, at + interval > now ? at + interval : now + interval);
    if (running.has(entry.stream)) {
      markSkipped(entry.state, at);
      say('info', `poll ${entry.settings.pollTriggerId}: skipped the check due at ${iso(at)}, a poll still runs`, {
        pollTriggerId: entry.settings.pollTriggerId,
      });
      return save(entry);
    }
    poll(entry);
  }

  function poll(entry: Entry) {
    const { pollTriggerId, environment, run } = entry.settings;
    const executionId = `exe_${randomUUID()}`;
    const checkedAt = iso(clock.now());
    const fields = { pollTriggerId, executionId };
    running.add(entry.stream);
    save(entry);
    const polling = startPoll!({
      executionId,
      pollTriggerId,
      environment,
      run,
      stream: entry.stream,
      signal: stopping.signal,
    })
      .then(
        (end) => {
          Object.assign(entry.state, { state: 'active', stateMessage: null, lastRecordCount: end.records });
          say('info', `poll ${executionId} of ${pollTriggerId} succeeded: ${recordsSaid(end.records)}`, fields);
        },
        (error: unknown) => {
          if (stopping.signal.aborted)
            return say('info', `poll ${executionId} of ${pollTriggerId} stopped with the receiver`, fields);
          const code = error instanceof ConnectorError ? error.code : 'internal_error';
          Object.assign(entry.state, { state: 'failing', stateMessage: `the last poll failed: ${code}` });
          const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
          say('error', `poll ${executionId} of ${pollTriggerId} failed (${code}): ${message}`, { ...fields, code });
        },
      )
      .then(() => {
        if (stopping.signal.aborted) return;
        Object.assign(entry.state, { lastCheckedAt: checkedAt, lastExecutionId: executionId });
        save(entry);
      })
      .finally(() => {
        running.delete(entry.stream);
        inFlight.delete(polling);
      });
    inFlight.add(polling);
  }

  const pause = (entry: Entry, why: string) =>
    Object.assign(entry.state, { state: 'paused', stateMessage: why, nextCheckAt: null });

  const settled = async () => {
    while (inFlight.size > 0) await Promise.all(inFlight);
    await Promise.all(entries.map((entry) => entry.writes));
  };
  return {
    async start() {
      for (const settings of polls) {
        const kept = await store.read(settings.pollTriggerId).catch(() => undefined);
        const entry: Entry = {
          settings,
          state: initialState(settings, kept),
          stream: streamOf(settings),
          writes: Promise.resolve(),
        };
        entries.push(entry);
        if (settings.status !== 'active') pause(entry, `not polled: its status is not active`);
        else if (!startPoll) pause(entry, 'not polled: this receiver starts no runs');
        else {
          const keptAt = Date.parse(entry.state.nextCheckAt ?? '');
          schedule(entry, Number.isNaN(keptAt) ? clock.now() : keptAt);
        }
        save(entry);
      }
    },
    states: () => entries.map((entry) => ({ ...entry.state })),
    settled,
    async stop(closing = {}) {
      for (const entry of entries) {
        entry.timer?.cancel();
        entry.timer = undefined;
      }
      if (closing.abort) stopping.abort();
      await settled();
    },
  };
}
