import { CancelledError, ConflictError, ConnectorError } from '../errors.js';
import type { IdempotencyRecord } from '../stores.js';

/**
 * The codes the executor's entry points fail with themselves, before or around a run: a
 * failure of the run itself (the provider's answer, the network) keeps its own `code`.
 * - `unknown_connector`: no connector under the key (`UnknownConnectorError`).
 * - `invalid_connection`: the host's resolver gave no connection, another one, one of another
 *   environment, settings holding a secret (rule 10), or no credential (`ConnectionConfigError`).
 * - `invalid_input`, `unknown_action`, `not_implemented`: the run's validation refused it.
 * - `approval_required`: the gate refused the run (`ApprovalRequiredError`, `ApprovalRefusedError`).
 * - `cancelled`: the request's signal fired before anything was sent or a page acknowledged.
 * - `conflict`: the idempotency key was used for another run, or its run has not settled
 *   (`IdempotencyKeyReusedError`, `IdempotencyUnsettledError`; the error's `state` says which).
 * - `checkpoint_too_new`, `checkpoint_migration_failed`: the stored checkpoint cannot be resumed.
 * - `schema_mismatch`: a plugin's options page is not an options page.
 * - `connector_failed`: a listing gave no page; also the code a key's uncertain outcome records
 *   for a failure that was no `ConnectorError`.
 */
export type ExecutorErrorCode =
  | 'unknown_connector'
  | 'invalid_connection'
  | 'invalid_input'
  | 'unknown_action'
  | 'not_implemented'
  | 'approval_required'
  | 'cancelled'
  | 'conflict'
  | 'checkpoint_too_new'
  | 'checkpoint_migration_failed'
  | 'schema_mismatch'
  | 'connector_failed';

/** Codes of failures raised before any request leaves: the provider did nothing. */
export const BEFORE_SENDING: ReadonlySet<string> = new Set<ExecutorErrorCode>([
  'invalid_input',
  'invalid_connection',
  'approval_required',
  'unknown_action',
  'not_implemented',
]);

/** No connector under the key the request names. */
export class UnknownConnectorError extends ConnectorError {
  /** The family's general code, which a more precise one still answers to. */
  static readonly code: ExecutorErrorCode = 'unknown_connector';

  constructor(key: string, known: readonly string[]) {
    super(`no connector '${key}'; the executor has ${known.length ? known.join(', ') : 'none'}`, {
      code: UnknownConnectorError.code,
      retryable: false,
      platformStatus: 404,
    });
  }
}

/** The idempotency key was used before for something else (another digest). */
export class IdempotencyKeyReusedError extends ConflictError {
  constructor(key: string, record: IdempotencyRecord, digest: string) {
    super(
      `idempotency key ${JSON.stringify(key)} was first used for ${record.connector} ${record.action} (digest ${record.digest}); this request (digest ${digest}) asks for something else. Use a new key for a different run`,
      { state: 'idempotency_key_reused' },
    );
  }
}

function unsettledMessage(key: string, record: IdempotencyRecord): string {
  const quoted = JSON.stringify(key);
  if (record.state === 'running')
    return `a run with idempotency key ${quoted} started at ${record.startedAt} and has not finished; if its process died, check with the provider whether it acted, then settle the key as succeeded (a repeat returns the result) or failed (a repeat runs again)`;
  if (record.state === 'uncertain')
    return `the run with idempotency key ${quoted} failed at ${record.finishedAt} after its request may have reached the provider (${record.error.code}: ${record.error.message}); it is not run again under this key: check with the provider${record.error.requestId ? ` (request ${record.error.requestId})` : ''}, then settle the key as succeeded or failed, or use a new key`;
  return `idempotency key ${quoted} is settled`;
}

/** A run under the key is still going (or its process died); or its outcome is unknown. */
export class IdempotencyUnsettledError extends ConflictError {
  readonly record: IdempotencyRecord;

  constructor(key: string, record: IdempotencyRecord) {
    super(unsettledMessage(key, record), {
      state: record.state === 'running' ? 'idempotency_in_progress' : 'idempotency_outcome_unknown',
      retryable: record.state === 'running',
    });
    this.record = record;
  }
}

/** Stops with `cancelled` when the caller's signal fired. */
export function stopIfCancelled(signal: AbortSignal | undefined, subject: string): void {
  if (signal?.aborted) throw new CancelledError(`${subject}: the run was cancelled`);
}

/** A failure the executor itself raises with one of its codes. */
export function executorFailure(code: ExecutorErrorCode, message: string, platformStatus: number): ConnectorError {
  return new ConnectorError(message, { code, retryable: false, platformStatus });
}
