import { mkdir } from 'node:fs/promises';
import type { LogSink } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';
import { ReceiverStateError } from './errors.js';
import { eventLog } from './event-log.js';
import type { EventStore } from './event-store.js';
import type { Probe } from './health.js';
import type { PollSettings } from './poll-config.js';
import type { StartPoll } from './poll-start.js';
import { type PollScheduler, pollScheduler } from './polls.js';
import type { ReceiverQueueOptions } from './queue-options.js';
import { type ReceiptLog, receiptLog } from './receipts.js';
import type { StartRun } from './run-start.js';

/**
 * Where a receiver keeps what it must, chosen once as it listens: the embedded default (a state
 * folder, runs started by the host's `startRun`, polls on the receiver's timer), or queued mode
 * (the worker fleet's PostgreSQL and run queue, loaded only then).
 */

export interface ReceiverState {
  events: EventStore;
  receipts: ReceiptLog;
  /** Starts the run of an accepted delivery; none: deliveries are only kept. */
  startRun?: StartRun | undefined;
  polls: PollScheduler;
  /** Whether the state can take a delivery now (`GET /health`); none: whenever the receiver listens. */
  probe?: Probe | undefined;
  /** Ends what the state opened, once nothing uses it any more. */
  close(): Promise<void>;
}

export interface StateOptions {
  stateDir?: string | undefined;
  queue?: ReceiverQueueOptions | undefined;
  startRun?: StartRun | undefined;
  startPoll?: StartPoll | undefined;
  /** Given: the state folder's receipts are set aside daily, so whole days can be removed. */
  receiptRetentionDays?: number | undefined;
  clock: Clock;
  log: LogSink;
}

async function folderState(stateDir: string, polls: readonly PollSettings[], options: StateOptions) {
  try {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ReceiverStateError(stateDir, (error as NodeJS.ErrnoException).code ?? String(error), error);
  }
  const receipts = receiptLog(stateDir, { daily: options.receiptRetentionDays !== undefined });
  const events = eventLog(stateDir);
  const { clock, log, startPoll } = options;
  return {
    events,
    receipts,
    startRun: options.startRun,
    polls: pollScheduler(polls, { stateDir, clock, log, ...(startPoll ? { startPoll } : {}) }),
    close: async () => {
      await Promise.all([receipts.close(), events.close()]);
    },
  };
}

export async function openState(options: StateOptions, polls: readonly PollSettings[]): Promise<ReceiverState> {
  if (options.queue) return (await import('./queued.js')).openQueued(options.queue, polls);
  return folderState(options.stateDir!, polls, options);
}
