import { InvalidInputError, type Page } from '@plugboard/sdk';
import type { PollRunSettings } from './poll-config.js';
import { type ExecutorHost, executorFor, type RunEnd } from './run-start.js';

/**
 * A poll of a poll trigger: an incremental read of its source action from the stream's last
 * checkpoint. The receiver hands each one to a `StartPoll`; the embedded one
 * (`executorPollStarter`) reads through the SDK's executor, which resumes from the stream's
 * checkpoint and commits each page's checkpoint once the page is acknowledged.
 */

export interface PollRun {
  /** The poll's id: its state's `lastExecutionId`. */
  executionId: string;
  pollTriggerId: string;
  environment: 'sandbox' | 'production';
  run: PollRunSettings;
  /** The checkpoint stream read: one poll at a time per stream. */
  stream: string;
  /** Aborted when the receiver stops waiting for its polls. */
  signal: AbortSignal;
}

export type StartPoll = (poll: PollRun) => Promise<RunEnd>;

export interface PollStarterOptions {
  /**
   * Takes each page a poll read; resolving acknowledges it, and only then is its checkpoint
   * committed (a rejection ends the poll at the checkpoint before). Default: acknowledged at once.
   */
  onPage?: (page: Page, poll: PollRun) => void | Promise<void>;
}

/**
 * Reads each poll's source through a new executor on the host's connectors, stores (where the
 * checkpoints are kept) and transport, on the connection the poll names. An action that is not a
 * source is refused before anything is sent (`invalid_input`, naming `run.action`).
 */
export function executorPollStarter(host: ExecutorHost, options: PollStarterOptions = {}): StartPoll {
  return async (poll) => {
    const { connector, action, connection, input } = poll.run;
    const executor = executorFor(host, connection);
    const request = {
      connectorKey: connector,
      action,
      connectionId: connection.id,
      environment: poll.environment,
      input: input ?? {},
      stream: poll.stream,
      signal: poll.signal,
    };
    const ready = await executor.prepare(request);
    if (ready.prepared.action.direction !== 'source')
      throw new InvalidInputError('poll', [
        { path: 'run.action', message: `${action} is not a source: a poll reads one` },
      ]);
    const outcome = await executor.execute({ ...request, onPage: (page) => options.onPage?.(page, poll) });
    return { records: outcome.direction === 'source' ? outcome.records : 0 };
  };
}
