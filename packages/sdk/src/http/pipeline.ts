import { type TokenRequests, TOKEN_ACTION, TOKEN_BUDGET } from '../auth/token-send.js';
import { type Action, retryPolicy } from '../definition/action.js';
import { budgetOf, type Connector, type RateBudget } from '../definition/connector.js';
import type { Environment } from '../definition/environment.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import type { AppliedAuth } from './auth.js';
import { readyToSend, transmit } from './exchange.js';
import { DEFAULT_MAX_RETRY_AFTER_SECONDS, maxWaitMsOf, type RetrySettings, timeoutMsOf } from './settings.js';
import { budget } from './stages/budget.js';
import { classification } from './stages/classify.js';
import { credential } from './stages/credential.js';
import { networkPolicy } from './stages/network.js';
import { reachWatch } from './stages/reach.js';
import { redaction } from './stages/redaction.js';
import { redirect } from './stages/redirect.js';
import { retry } from './stages/retry.js';
import type { Answer, Send, StageAbout } from './stages/stage.js';
import { timeout } from './stages/timeout.js';
import { tokens } from './stages/tokens.js';
import type { Transport } from './transport.js';

/**
 * The one place the HTTP stages are composed, for an action's `ctx.http` and for token requests
 * alike. Each stage is made from an options object of what it uses, around the stage below it
 * (as undici's interceptors wrap a dispatch). An action's calls pass, in order:
 *
 *   redaction       what leaves is redacted and typed; request start and end are published
 *   retry           transient failures of reads and safe writes, backoff on the clock
 *   classification  a failed status becomes its typed ConnectorError; the client hears of every answer
 *   host stages     `createTransport({ stages })`, outermost first: once per attempt
 *   tokens          the OAuth2 access token of each attempt; a 401 refreshes it and goes once more
 *   budget          the rate budget's turn, its pauses, and the write gate carried down
 *   timeout         one timer for the whole exchange, redirects and body included
 *   redirect        each hop through the stages below again
 *   credential      the connection's scheme (header, query, Basic, signer, OAuth2 token), to the base URL's origin only
 *   network policy  the address each hop goes to
 *   transport       one exchange: undici, fetch or Node's http
 *
 * What does not change from run to run, from the host's stages down, is built once for a
 * connection and an action (`connectionStages`); a run adds the three stages above them, which
 * read its log, its cancel and its retry settings (`runSend`). A call carries the run's cancel
 * as its `signal` down to the timeout stage. A token request passes the budget (its own,
 * `oauth2_token`), the timeout and the network policy only (`tokenRequestSend`).
 */

/** One connection as its requests go: what the stages below the run's are made from. */
export interface ConnectionRoute {
  transport: Transport;
  connector: Connector;
  connectionId: string;
  environment: Environment;
  baseUrl: string;
  /** What the credential stage adds; an OAuth2 connection's token source feeds the tokens stage. */
  auth: AppliedAuth | undefined;
  redactor: Redactor;
}

/** One action's stages on one connection, from the host's down to the transport, and the names they publish under. */
export interface ConnectionStages {
  readonly send: Send;
  readonly about: StageAbout;
  /** The transport's clock, which the run's own stages wait on too. */
  readonly clock: Clock;
}

/** The stages of one action's calls on one connection, from the host's down to the transport. */
export function connectionStages(route: ConnectionRoute, action: Action): ConnectionStages {
  const { transport, connector, connectionId, environment, auth, redactor } = route;
  const about: StageAbout = Object.freeze({ connector: connector.key, action: action.key });
  let send = transmit({ transport, environment, redactor, about });
  send = networkPolicy({ network: transport.network, environment, about }, send);
  send = credential({ auth, baseUrl: route.baseUrl, redactor, connector: connector.key }, send);
  send = redirect({ redactor, about }, send);
  const limits = {
    defaultBudget: budgetOf(connector, action) ?? 'default',
    maxWaitMs: maxWaitMsOf(action),
    timeoutMs: timeoutMsOf(action),
  };
  send = turnAndTimer({ ...route, connector: connector.key, rateLimits: connector.rateLimits }, about, limits, send);
  if (auth?.type === 'token') send = tokens({ source: auth.source, redactor, connector: connector.key }, send);
  const { stages: hosts, clock } = transport;
  const run = { ...about, connectionId, environment, clock };
  for (let index = hosts.length - 1; index >= 0; index -= 1) send = hosts[index]!(send, run);
  return { send, about, clock };
}

/** What the stages above the host's take from one run. */
export interface RunScope {
  redactor: Redactor;
  log: Logger;
  /** The run's cancel. */
  signal: AbortSignal;
  retry: RetrySettings;
  /** The header (lower case) of the run's idempotency key, when it has one its action's provider deduplicates on. */
  idempotencyHeader: string | undefined;
  /** Told of every answer (the client keeps the latest request id). */
  heard(answer: Answer): void;
}

/**
 * One run's pipeline: redaction, retry (where its action may be retried) and classification,
 * over the connection's stages. The three are made from one options object, the run's.
 */
export function runSend(connector: Connector, action: Action, below: ConnectionStages, scope: RunScope): Send {
  const keyedHeader = retriedKey(action, scope);
  const options = {
    ...scope,
    about: below.about,
    clock: below.clock,
    classifyError: connector.classifyError?.bind(connector),
    settings: scope.retry,
    keyedHeader: keyedHeader === ALL ? undefined : keyedHeader,
    maxWaitMs: maxWaitMsOf(action),
  };
  let send = classification(options, below.send);
  if (keyedHeader !== undefined) send = retry(options, send);
  return redaction(options, send);
}

/** Every call of the run may be sent again. */
const ALL = Symbol('every call');

/**
 * Which calls of a run may be sent again: none for a billable action (undefined); every transient
 * failure of a read or a safe write (`retryPolicy`); else only the writes that carry the run's
 * idempotency key to a provider that deduplicates on it (its header), unless the author said
 * `retry: 'never'` himself.
 */
function retriedKey(action: Action, scope: RunScope): string | typeof ALL | undefined {
  if (scope.retry.retries < 1 || action.billable) return undefined;
  if (retryPolicy(action) === 'safe') return ALL;
  return action.retry === undefined ? scope.idempotencyHeader : undefined;
}

/** One connection's token requests: where they go, and the budgets its connector declares. */
export interface TokenRoute {
  transport: Transport;
  /** The connector's key: token requests draw on its budget `oauth2_token` for the connection. */
  connector: string;
  connectionId: string;
  /** The network policy the token endpoint is reached under. */
  environment: Environment;
  /** Every error a token request ends with is redacted with it. */
  redactor: Redactor;
  /** The connector's declared budgets, when the connector is known: one it declares for `oauth2_token` holds. */
  rateLimits?: Readonly<Record<string, RateBudget>>;
  /** The longest wait for a turn of the token budget; default the SDK's (90 s). */
  maxWaitMs?: number;
}

/** How one connection's token requests are sent: the budget, one timer and the network policy over the transport; no run cancels them. */
export function tokenRequestSend(route: TokenRoute): TokenRequests {
  const about: StageAbout = { connector: route.connector, action: TOKEN_ACTION };
  const { transport, environment, redactor } = route;
  const limits = { defaultBudget: TOKEN_BUDGET, maxWaitMs: route.maxWaitMs ?? DEFAULT_MAX_RETRY_AFTER_SECONDS * 1000 };
  return (timeoutMs, reach) => {
    let send = reachWatch(reach, transmit({ transport, environment, redactor, about }));
    send = networkPolicy({ network: transport.network, environment, about }, send);
    return turnAndTimer({ ...route, rateLimits: route.rateLimits ?? {} }, about, { ...limits, timeoutMs }, send);
  };
}

/** The budget's turn, then one timer around the exchange below: what every request to a provider passes. */
function turnAndTimer(
  route: Pick<TokenRoute, 'transport' | 'connector' | 'connectionId' | 'environment' | 'redactor'> & {
    rateLimits: Readonly<Record<string, RateBudget>>;
  },
  about: StageAbout,
  limits: { defaultBudget: string; maxWaitMs: number; timeoutMs: number },
  next: Send,
): Send {
  const { transport, connector, connectionId, environment, redactor, rateLimits } = route;
  const { timeoutMs } = limits;
  const timed = timeout({ timeoutMs, redactor, ready: () => readyToSend(transport, environment) }, next);
  const budgetFor = (name: string) => transport.budgets.get(connector, connectionId, name, rateLimits[name]);
  return budget({ ...limits, budgetFor, clock: transport.clock, about }, timed);
}
