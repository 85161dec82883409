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
import {
  IdempotencyKeyReusedError,
  IdempotencySettleRefusedError,
  IdempotencyUnsettledError,
  NoOptionsError,
  UnknownActionError,
  UnknownConnectorError,
} from '@plugboard/sdk/host';
import { CredentialVariableError } from './credential-variable.js';
import { UnknownActionNameError } from './did-you-mean.js';
import type { ExitCode } from './exit-codes.js';
import { type CliIo, writeJsonLine } from './io.js';
import { printable } from './messages.js';
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

/**
 * Idempotency keys whose state a person must look at before anything runs under them again:
 * never exit 1, which a script would retry.
 */
/**
 * The worker's refusals a person resolves (by code: the CLI loads the worker only for its
 * commands): a PostgreSQL schema older or newer than this Plugboard, a token set sealed with
 * another key, a queue's Redis that may evict keys.
 */
const STATE_NEEDS_A_PERSON = new Set([
  'schema_out_of_date',
  'schema_too_new',
  'credential_unreadable',
  'redis_eviction_policy',
  // An MCP approval that cannot be decided or used as asked: a person looks at it (approvals show).
  'approval_unknown',
  'approval_pending',
  'approval_not_pending',
  'approval_expired',
  'approval_used',
  'approval_digest_mismatch',
]);

function keyNeedsAPerson(error: ConnectorError): boolean {
  return (
    error instanceof IdempotencyUnsettledError ||
    error instanceof IdempotencySettleRefusedError ||
    error.code === 'idempotency_key_unknown' ||
    STATE_NEEDS_A_PERSON.has(error.code)
  );
}

export function exitCodeOf(error: unknown): ExitCode {
  if (!(error instanceof ConnectorError)) return 1;
  // The person who asked for an approval cannot decide it: someone else must, as for exit 3.
  if (error instanceof ApprovalRequiredError || error.code === 'self_approval') return 3;
  if (keyNeedsAPerson(error)) return 6;
  // A followed run's failure comes back from its row as the provider's status.
  if (error instanceof QuotaExhaustedError || error.status === 402) return 5;
  // A plugin's process sends its refusal back as a failure of the same code.
  if (REFUSED_BEFORE_SENDING.some((kind) => error instanceof kind) || error.code === 'unknown_action') return 2;
  if (NEEDS_A_PERSON.some((kind) => error instanceof kind)) return 4;
  // A status is set only when the provider answered.
  if (error.status !== undefined && error.status >= 400 && error.status < 500) return 4;
  return 1;
}

/** What to do next when the network policy refused an address, by its class, in the CLI's own terms. */
function addressHint(error: AddressRefusedError): string {
  switch (error.addressClass) {
    case 'loopback':
      return 'a local provider or stand-in? sandbox runs reach loopback addresses; in production, PLUGBOARD_ALLOW_NETWORK=127.0.0.0/8 lets them through';
    case 'private':
    case 'unique-local':
      return `a provider inside your own network? set PLUGBOARD_ALLOW_NETWORK to its range, e.g. PLUGBOARD_ALLOW_NETWORK=${error.addressClass === 'private' ? '10.0.0.0/8' : 'fd00::/8'} (CIDR, comma-separated)`;
    case 'metadata':
      return 'a cloud metadata server is never a provider: check --base-url, and what its host name resolves to';
    default:
      return 'check --base-url: no provider answers on such an address';
  }
}

/** What to do next after a failure, in the CLI's own terms; undefined when the message says it all. */
export function hintFor(error: unknown): string | undefined {
  if (error instanceof UnknownActionNameError || error instanceof CredentialVariableError) return error.hint;
  if (error instanceof ApprovalRequiredError) {
    return `someone other than you approves digest ${error.digest}; then run the same command with --approval '{"digest":"${error.digest}","requestedBy":"YOU","decidedBy":"THEM","decision":"approved","expiresAt":null}'`;
  }
  if (error instanceof ConnectionConfigError && SECRET_SETTINGS.test(error.message))
    return 'a credential goes in PLUGBOARD_CREDENTIAL (or plugboard auth login), never in --connection';
  if (error instanceof ConnectionConfigError && /no public default base URL/.test(error.message))
    return "pass --base-url URL: the provider's, or a local stand-in's (plugboard mock)";
  if (error instanceof ConnectionConfigError && /PLUGBOARD_CREDENTIAL|credential/.test(error.message))
    return 'set PLUGBOARD_CREDENTIAL to what the message says the scheme takes (a key as it is, or the JSON of its credential), or sign in to an OAuth2 connection with plugboard auth login';
  if (error instanceof AuthenticationError)
    return 'the provider refused the credential: check PLUGBOARD_CREDENTIAL, or sign in again with plugboard auth login';
  if (error instanceof CredentialsExpiredError)
    return 'the credential has expired: sign in again with plugboard auth login, or replace PLUGBOARD_CREDENTIAL';
  if (error instanceof QuotaExhaustedError)
    return 'top up the account with the provider, or wait for the quota to renew';
  if (error instanceof AddressRefusedError) return addressHint(error);
  if (error instanceof NetworkError || error instanceof TimeoutError)
    return 'check --base-url and that the provider is reachable from here';
  // A field without options: its message names those with them.
  if (error instanceof NoOptionsError) return undefined;
  if (error instanceof UnknownActionError) return 'plugboard describe CONNECTOR lists its actions';
  if (error instanceof ConnectorError && error.code === 'idempotency_key_unknown')
    return 'a key is kept in the state folder of the runs that used it: pass the same --state, or PLUGBOARD_STATE';
  if (error instanceof CheckpointTooNewError)
    return 'a newer version of the connector kept this checkpoint: run that version, or pass --state with a new folder to read from the start';
  // The CLI's own refusals (a port in use, a folder not empty, a bad document) say what to do.
  if (error instanceof UsageError) return undefined;
  // A trigger configuration's problems are its file's, each named by its path: no action's inputs.
  if (error instanceof InvalidInputError && error.message.startsWith('trigger config: '))
    return 'plugboard triggers serve --help says what the file holds';
  // A server's URL, or the receiver's options: the message names the option and what it takes.
  if (error instanceof InvalidInputError && /^(receiver|Redis|PostgreSQL): /.test(error.message)) return undefined;
  if (error instanceof InvalidInputError)
    return 'plugboard describe CONNECTOR ACTION lists the inputs of the action, with their types';
  return undefined;
}

/** The library's advice in an SDK message, which the CLI replaces with its own hint. */
const LIBRARY_ADVICE: ReadonlyArray<[RegExp, string]> = [
  [/ \(a host may allow a range: createTransport\(\{ network: \{ allow \} \}\)\)/, ''],
  [/; store them in the vault and pass a secret reference instead\./, '.'],
];
const SECRET_SETTINGS = /settings must not hold secrets/;

/** A failure's message as the CLI says it: the library's advice to a host program left out (the hint gives the CLI's). */
export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return LIBRARY_ADVICE.reduce((text, [advice, instead]) => text.replace(advice, instead), message);
}

/** A command line commander refused, reported like any input refused before a request. */
export class UsageFailure extends Error {
  /** The command whose help to see (`run`, `idempotency settle`; empty for plugboard's own). */
  readonly command: string;

  constructor(message: string, command: string) {
    // Commander puts its suggestion on a line of its own: one line, in the CLI's words.
    super(message.replace(/\n\(Did you mean (.+)\?\)$/, '; did you mean $1?'));
    this.command = command;
  }
}

function usageHint(failure: UsageFailure): string {
  const help = `plugboard ${failure.command ? `${failure.command} ` : ''}--help`;
  return failure.message.startsWith('unknown command') ? `${help} lists the commands` : `${help} shows its options`;
}

/**
 * Says why a command failed, on stderr: for a person at a terminal the message in the CLI's
 * words and a hint of what to do; for a log or a script (`asJson`) the platform Error JSON,
 * with the hint. `words`: the command and its arguments as parsed (option values left out).
 */
export function report(error: unknown, words: string[], io: CliIo, asJson: boolean): ExitCode {
  const code = error instanceof UsageFailure ? 2 : exitCodeOf(error);
  const hint = error instanceof UsageFailure ? usageHint(error) : hintFor(error);
  const message = excerpt(messageOf(error), 1000);
  if (!asJson) {
    // The CLI's own input errors already begin with `plugboard: ` (and its refusals of the command line with `arguments: `): said once.
    const text = message.replace(/^plugboard: (arguments: )?/, '');
    io.stderr.write(`plugboard: ${printable(text)}\n${hint ? `hint: ${printable(hint)}\n` : ''}`);
    return code;
  }
  const path = `/cli/${words
    .slice(0, 3)
    .map((word) => excerpt(word))
    .join('/')}`;
  // The provider's request id when it gave one, else one for this invocation.
  const requestId =
    (error instanceof ConnectorError ? error.requestId : undefined) ?? `cli_${randomBytes(6).toString('hex')}`;
  const platform =
    error instanceof ConnectorError
      ? { ...error.toPlatformError(path, requestId), message }
      : error instanceof UsageFailure
        ? { error: 'request_failed', message, statusCode: 400, requestId, path, code: 'invalid_input' }
        : { error: 'internal_server_error', message, statusCode: 500, requestId, path };
  writeJsonLine(io.stderr, hint ? { ...platform, hint } : platform);
  return code;
}
