import { type TokenRequests, TOKEN_ACTION, TOKEN_BUDGET } from '../auth/token-send.js';
import { type Action, retryPolicy } from '../definition/action.js';
import { budgetOf, type Connector, type RateBudget } from '../definition/connector.js';
import type { Environment } from '../definition/environment.js';
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
import { EVERY_CALL, type RunScope } from './stages/run-scope.js';
import type { Send, StageAbout } from './stages/stage.js';
import { timeout } from './stages/timeout.js';
import { tokens } from './stages/tokens.js';
import type { TransportParts } from './transport.js';

/**
 * The one place the HTTP stages are composed, for an action's `ctx.http` and for token requests
 * alike. Each stage is made from an options object of what it uses, around the stage below it
 * (as undici's interceptors wrap a dispatch). An action's calls pass, in order:
 *
 *   redaction       what leaves is redacted and typed; request start and end are published
 *   retry           transient failures of reads and safe writes, backoff on the clock
 *   classification  a failed status becomes its typed ConnectorError; the client hears of every answer
 *   host stages     `createHostTransport({ stages })`, outermost first: once per attempt
 *   tokens          the OAuth2 access token of each attempt; a 401 refreshes it and goes once more
 *   budget          the rate budget's turn, its pauses, and the write gate carried down
 *   timeout         one bound for the whole exchange, redirects and body included
 *   redirect        each hop through the stages below again
 *   credential      the connection's scheme (header, query, Basic, signer, OAuth2 token), to the base URL's origin only
 *   network policy  the address each hop goes to
 *   transport       one exchange: undici, fetch or Node's http
 *
 * The whole of it is built once for a connection and an action (`connectionStages`) and serves
 * every run on it: what is a run's own rides on its calls, its cancel as the call's `signal` down
 * to the timeout stage, and its log, retry settings and the client that hears every answer as
 * the call's run scope (stages/run-scope.ts), which only the three stages above the host's read.
 * A token request passes the budget (its own, `oauth2_token`), the timeout and the network
 * policy only (`tokenRequestSend`).
 */

/** One connection as its requests go: what its pipeline is made from. */
export interface ConnectionRoute {
  transport: TransportParts;
  connector: Connector;
  connectionId: string;
  environment: Environment;
  baseUrl: string;
  /** What the credential stage adds; an OAuth2 connection's token source feeds the tokens stage. */
  auth: AppliedAuth | undefined;
  redactor: Redactor;
}

/** One action's pipeline on one connection, and the names its stages publish under. */
export interface ConnectionStages {
  readonly send: Send;
  readonly about: StageAbout;
}

/**
 * The pipeline of one action's calls on one connection, built once for the runs on it: what is a
 * run's own (its log, which calls it retries and how, who hears the answers) rides on each call
 * (`RunScope`), and its cancel is the call's signal.
 */
export function connectionStages(route: ConnectionRoute, action: Action): ConnectionStages {
  const { transport, connector, connectionId, environment, auth, redactor } = route;
  const { clock } = transport;
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
  const hosts = transport.stages;
  const run = { ...about, connectionId, environment, clock };
  for (let index = hosts.length - 1; index >= 0; index -= 1) send = hosts[index]!(send, run);
  send = classification({ redactor, classifyError: connector.classifyError?.bind(connector), clock }, send);
  if (mayRetry(action)) send = retry({ maxWaitMs: limits.maxWaitMs, clock, about }, send);
  return { send: redaction({ redactor, about }, send), about };
}

/**
 * Which calls of a run may be sent again (`RunScope.retried`): none for a billable action or a
 * run without retries; every transient failure of a read or a safe write (`retryPolicy`); else
 * only the writes that carry the run's idempotency key (its header, when the run has one) to a
 * provider that deduplicates on it, unless the author said `retry: 'never'` himself.
 */
export function retriedCalls(
  action: Action,
  retry: RetrySettings,
  idempotencyHeader: string | undefined,
): RunScope['retried'] {
  if (retry.retries < 1 || !mayRetry(action)) return undefined;
  return retryPolicy(action) === 'safe' ? EVERY_CALL : idempotencyHeader;
}

/** True when some call of the action may be sent again, whatever the run: the retry stage is in its pipeline. */
function mayRetry(action: Action): boolean {
  if (action.billable) return false;
  if (retryPolicy(action) === 'safe') return true;
  return action.retry === undefined && action.direction === 'destination' && action.idempotencyHeader !== undefined;
}

/** One connection's token requests: where they go, and the budgets its connector declares. */
export interface TokenRoute {
  transport: TransportParts;
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
