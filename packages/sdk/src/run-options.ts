import type { ApprovalDecision } from './approval.js';
import type { Clock } from './clock.js';
import type { ConnectionInput, SecretResolver } from './connection.js';
import type { ProgressEvent } from './context.js';
import type { Environment } from './definition/environment.js';
import type { RetrySettings } from './http/settings.js';
import type { Transport } from './http/transport.js';
import type { LogLevel, LogSink } from './log.js';
import type { TokenSource } from './tokens.js';

/**
 * What a run is given besides the connector and the action: `RunOptions` for `runAction`,
 * `readAll` and `writeAction`; `RunSettings` for a run a host prepared (run.ts).
 */

/** What a run takes: the input, the connection, and the credential, the gate's decision and where things go. */
export interface RunOptions {
  input: unknown;
  connection?: ConnectionInput;
  environment?: Environment;
  /** Where an incremental source resumes: the checkpoint of the last acknowledged page. */
  checkpoint?: unknown;
  /** The credential, resolved by the host from its vault. */
  credential?: SecretResolver;
  signal?: AbortSignal;
  /** Receives structured log entries, already redacted. Default: warnings and errors to stderr. */
  log?: LogSink;
  /** The least level that reaches `log`; lower entries are never built. Default: `info` with a sink of the caller's, `warn` without; `debug` adds an entry per provider answer. */
  logLevel?: LogLevel;
  onProgress?: (event: ProgressEvent) => void;
  /** The pool and rate budgets to use; default: the process-wide one. */
  transport?: Transport;
  retry?: Partial<RetrySettings>;
  /** The decision of someone other than the requester on exactly this run; required when the action needs approval here. */
  approval?: ApprovalDecision;
  /** Further secret values to keep out of logs and errors. */
  secrets?: readonly string[];
  /**
   * A destination's idempotency key as the provider gets it (`ctx.idempotencyKey`), sent as is in
   * the action's `idempotencyHeader`; the executor derives it from the caller's key. At most 255
   * characters an HTTP header can carry.
   */
  idempotencyKey?: string;
}

/**
 * What a prepared run needs besides what `prepareRun` checked, as a host gives it (`runPrepared`,
 * a `ConnectorRunner`): the run options but those `prepareRun` took, and the host's clock and
 * token source.
 */
export interface RunSettings extends Omit<RunOptions, 'input' | 'connection' | 'environment' | 'checkpoint'> {
  /** The time the approval's expiry is checked against and log entries and progress events are stamped with; default the system clock. */
  clock?: Clock;
  /**
   * The token source of an OAuth2 connection whose token lifecycle the host keeps elsewhere (an
   * isolated plugin's host, `connectionTokenSource`): used instead of the transport's own, so the
   * credential needs no refresh token or client secret.
   */
  tokens?: TokenSource;
}
