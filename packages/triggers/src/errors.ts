import { ConnectorError, type InputIssue, InvalidInputError } from '@plugboard/sdk';

/**
 * The receiver's typed failures: a configuration refused before it listens (every problem named
 * with its path, never a value that could be a secret), and a state folder it cannot use.
 */

/** The trigger configuration is not valid: each problem with its path (`triggers.0.secretEnv`). Nothing listens. */
export class TriggerConfigError extends InvalidInputError {
  constructor(issues: readonly InputIssue[]) {
    super('trigger config', issues);
  }
}

/** The state folder cannot be read or written: receipts, dedupe records and inputs cannot be kept. */
export class ReceiverStateError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'receiver_state_unusable';

  constructor(dir: string, reason: string, cause?: unknown) {
    super(`the receiver's state folder ${dir} cannot be used: ${reason}`, {
      code: ReceiverStateError.code,
      retryable: false,
      platformStatus: 500,
      cause,
    });
  }
}

/** The run queue or its database could not be reached: the delivery stays pending and is queued when a receiver next listens. */
export class RunNotQueuedError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'run_not_queued';

  constructor(executionId: string, cause: ConnectorError) {
    super(`run ${executionId} could not be queued (${cause.code}): it is queued when a receiver next listens`, {
      code: RunNotQueuedError.code,
      retryable: true,
      platformStatus: 503,
      cause,
    });
  }
}
