import type { Clock } from '../clock.js';
import { checkCredential, type ConnectionCredential } from '../credentials.js';
import type { AuthScheme } from '../definition/auth.js';
import type { Environment } from '../definition/environment.js';
import { ConnectionConfigError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { tokenRequestSend } from '../http/pipeline.js';
import { partsOf, type Transport } from '../http/transport.js';
import { createLogger, type LogLevel, type LogSink, stderrSink } from '../log.js';
import type { Redactor } from '../secrets.js';
import type { TokenSource } from '../tokens.js';
import { schemeAtAuthBase } from './auth-base.js';
import { connectionTokens, tokenSubject } from './lifecycles.js';
import type { OAuth2Checked } from './schemes/credential-reader.js';
import { isOAuth2Scheme, schemeProblems } from './schemes/index.js';
import { TOKEN_ACTION } from './token-send.js';

/**
 * The token source of an OAuth2 connection whose actions run elsewhere (an isolated plugin's
 * process): the host keeps the connection's token lifecycle on its own transport (its
 * credential store, lease, network policy and budgets), shared with the connection's runs in
 * the host, and hands the run only the token sets it asks for.
 */
export interface ConnectionTokensRequest {
  /** The connector's key. */
  connector: string;
  /** The connection's OAuth2 scheme as the connector declares it: token requests go to its `tokenUrl`. */
  scheme: AuthScheme;
  /** The connection's `authBaseUrl` (sandbox only): token requests go to `<authBaseUrl>/token` instead. */
  authBaseUrl?: string;
  /** The connection whose token set the transport's credential store keeps. */
  connectionId: string;
  /** The environment the run connects under: the network policy token requests pass. */
  environment: Environment;
  /** The connection's credential from the host's vault: an `OAuth2Credential`. */
  credential: ConnectionCredential;
  /** Where token requests go; default: the process-wide transport. */
  transport?: Transport;
  /** The run's redactor: every token set the source gets is added to it, and errors are redacted with it. */
  redactor: Redactor;
  /** Receives the token requests' log entries, already redacted; default: warnings and errors to stderr. */
  log?: LogSink;
  /** The least level that reaches `log`; default `info` with a sink, `warn` without. */
  logLevel?: LogLevel;
  /** The time log entries are stamped with; default the transport's clock. */
  clock?: Clock;
}

/**
 * The token source of a connection on `transport`: `current()` and `refreshAfter401(used)` as a
 * run in this process gets them. The scheme and the credential are checked first: a
 * `ConnectionConfigError` names what is wrong, and nothing is sent.
 */
export function connectionTokenSource(request: ConnectionTokensRequest): TokenSource {
  const { connector: key, connectionId, redactor, environment } = request;
  const scheme = schemeAtAuthBase(request.scheme, request.authBaseUrl, environment);
  const subject = `connector '${key}': auth scheme '${excerpt(String(scheme?.id))}'`;
  if (!isOAuth2Scheme(scheme))
    throw new ConnectionConfigError(`${subject} is not an OAuth2 scheme: it has no token lifecycle; nothing was sent`);
  const problems = schemeProblems(scheme);
  if (problems.length > 0) throw new ConnectionConfigError(`${subject}: ${problems.join('; ')}; nothing was sent`);
  // An OAuth2 scheme's credential checks as an OAuth2 one, or not at all.
  const checked = checkCredential(key, scheme, request.credential) as OAuth2Checked;
  const transport = partsOf(request.transport);
  const clock = request.clock ?? transport.clock;
  // The host has no definition of the connector here: its token requests draw on an undeclared budget.
  return connectionTokens(transport, key, connectionId).source({
    send: tokenRequestSend({ transport, connector: key, connectionId, environment, redactor }),
    redactor,
    log: createLogger(
      request.log ?? stderrSink,
      redactor,
      { connector: key, action: TOKEN_ACTION },
      request.logLevel ?? (request.log ? 'info' : 'warn'),
      clock,
    ),
    scheme,
    clientId: checked.clientId,
    clientSecret: checked.clientSecret,
    initial: checked.tokens,
    subject: tokenSubject(key, connectionId),
  });
}
