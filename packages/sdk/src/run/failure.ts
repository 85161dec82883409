import type { Action } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { CancelledError, ConnectorError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { Redactor } from '../secrets.js';

export class NotImplementedError extends ConnectorError {
  constructor(connector: Connector, action: Action) {
    super(`connector '${connector.key}': action '${action.key}' is declared but not implemented yet`, {
      code: 'not_implemented',
      retryable: false,
      platformStatus: 501,
    });
  }
}

/** The longest message an error that escapes a run carries: one made of short excerpts fits; one a connector built from a whole answer does not. */
const MAX_ERROR_MESSAGE = 2000;

/** Whatever escapes a run is a ConnectorError with no secret in it, and no whole provider answer. */
export function safeError(
  error: unknown,
  redactor: Redactor,
  connector: Connector,
  action: Action,
  signal: AbortSignal,
): ConnectorError {
  if (error instanceof ConnectorError) {
    error.message = excerpt(redactor.redactString(error.message), MAX_ERROR_MESSAGE);
    return error;
  }
  if (signal.aborted) {
    return new CancelledError(`${connector.key} ${action.key}: the run was cancelled`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectorError(`${connector.key} ${action.key}: ${excerpt(redactor.redactString(message))}`, {
    code: 'connector_failed',
    retryable: false,
    platformStatus: 500,
  });
}
