import { randomBytes } from 'node:crypto';
import {
  AddressRefusedError,
  ApprovalRequiredError,
  AuthenticationError,
  CheckpointTooNewError,
  ConnectionConfigError,
  ConnectorError,
  CredentialsExpiredError,
  excerpt,
  InvalidInputError,
  NetworkError,
  PermissionError,
  ProviderRejectedError,
  QuotaExhaustedError,
  TimeoutError,
} from '@plugboard/sdk';
import { IdempotencyKeyReusedError, UnknownActionError, UnknownConnectorError } from '@plugboard/sdk/host';
import type { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage.js';

/**
 * How a failed command ends: its exit code from the table in exit-codes.ts, and what it
 * prints on stderr. Loaded only when a command fails.
 */

/** Failures raised before any request leaves: the provider did nothing. */
const REFUSED_BEFORE_SENDING = [
  InvalidInputError,
  ConnectionConfigError,
  UnknownActionError,
  UnknownConnectorError,
  IdempotencyKeyReusedError,
  AddressRefusedError,
  CheckpointTooNewError,
];

/**
 * Refusals only a person can mend (sign in again, a permission, what the provider rejected),
 * whether or not an HTTP answer carried them: an expired token found before sending, or a
 * sign-in the person denied, is never a retry.
 */
const NEEDS_A_PERSON = [AuthenticationError, CredentialsExpiredError, PermissionError, ProviderRejectedError];

export function exitCodeOf(error: unknown): ExitCode {
  if (!(error instanceof ConnectorError)) return 1;
  if (error instanceof ApprovalRequiredError) return 3;
  if (error instanceof QuotaExhaustedError) return 5;
  // A plugin's process sends its refusal back as a failure of the same code.
  if (REFUSED_BEFORE_SENDING.some((kind) => error instanceof kind) || error.code === 'unknown_action') return 2;
  if (NEEDS_A_PERSON.some((kind) => error instanceof kind)) return 4;
  // A status is set only when the provider answered.
  if (error.status !== undefined && error.status >= 400 && error.status < 500) return 4;
  return 1;
}

/** What to do next after a failure, for a person at a terminal; undefined when the message says it all. */
export function hintFor(error: unknown): string | undefined {
  if (error instanceof ApprovalRequiredError) {
    return `someone other than you approves digest ${error.digest}; then run the same command with --approval '{"digest":"${error.digest}","requestedBy":"YOU","decidedBy":"THEM","decision":"approved","expiresAt":null}'`;
  }
  if (error instanceof ConnectionConfigError && /PLUGBOARD_CREDENTIAL|credential/.test(error.message))
    return 'export PLUGBOARD_CREDENTIAL=... (the token or key of the connection), then run again';
  if (error instanceof AuthenticationError)
    return 'the provider refused the credential: check PLUGBOARD_CREDENTIAL, or sign in again with plugboard auth login';
  if (error instanceof CredentialsExpiredError)
    return 'the credential has expired: sign in again with plugboard auth login, or replace PLUGBOARD_CREDENTIAL';
  if (error instanceof QuotaExhaustedError)
    return 'top up the account with the provider, or wait for the quota to renew';
  if (error instanceof AddressRefusedError)
    return 'a local provider or stand-in? PLUGBOARD_ALLOW_NETWORK=127.0.0.0/8 lets loopback through';
  if (error instanceof NetworkError || error instanceof TimeoutError)
    return 'check --base-url and that the provider is reachable from here';
  if (error instanceof UnknownActionError) return 'plugboard catalogue --out DIR lists every action with its inputs';
  if (error instanceof CheckpointTooNewError)
    return 'a newer version of the connector kept this checkpoint: run that version, or pass --state with a new folder to read from the start';
  // The CLI's own refusals (a port in use, a folder not empty, a bad document) say what to do.
  if (error instanceof UsageError) return undefined;
  if (error instanceof InvalidInputError)
    return "see the command's --help; the catalogue lists each action's input schema";
  return undefined;
}

/** A command line commander refused, reported like any input refused before a request. */
export class UsageFailure extends Error {}

/** `words`: the command and its arguments as parsed (option values left out). */
export function report(error: unknown, words: string[], io: CliIo, asJson: boolean): ExitCode {
  const code = error instanceof UsageFailure ? 2 : exitCodeOf(error);
  const path = `/cli/${words
    .slice(0, 3)
    .map((word) => excerpt(word))
    .join('/')}`;
  if (!asJson) {
    // The CLI's own input errors already begin with `plugboard: `: said once.
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000).replace(/^plugboard: /, '');
    const hint =
      error instanceof UsageFailure
        ? `see plugboard ${words.slice(0, 1).join(' ')} --help`.replace('  ', ' ')
        : hintFor(error);
    io.stderr.write(`plugboard: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
    return code;
  }
  // The provider's request id when it gave one, else one for this invocation.
  const requestId =
    (error instanceof ConnectorError ? error.requestId : undefined) ?? `cli_${randomBytes(6).toString('hex')}`;
  if (error instanceof ConnectorError) {
    io.stderr.write(`${JSON.stringify(error.toPlatformError(path, requestId))}\n`);
  } else if (error instanceof UsageFailure) {
    io.stderr.write(
      `${JSON.stringify({ error: 'request_failed', message: excerpt(error.message, 1000), statusCode: 400, requestId, path, code: 'invalid_input' })}\n`,
    );
  } else {
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
    io.stderr.write(
      `${JSON.stringify({ error: 'internal_server_error', message, statusCode: 500, requestId, path })}\n`,
    );
  }
  return code;
}
