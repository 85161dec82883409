import {
  type AuthScheme,
  type ConnectionCredential,
  ConnectionConfigError,
  excerpt,
  type LogSink,
  type OAuth2Credential,
  type TokenSet,
} from '@plugboard/sdk';
import { connectionTokenSource, type Redactor, type RunSettings, type TokenSource } from '@plugboard/sdk/host';
import type { Exchange } from './exchanges.js';
import type { KillReason } from './plugin-killed.js';
import type { PluginPort } from './plugin-port.js';
import { type ChildMessage, type HostMessage, MAX_TOKEN_ASKS, TOKEN_ASK_WINDOW_MS } from './protocol.js';
import type { RemotePlan } from './remote-plan.js';
import { toWire } from './wire.js';

/**
 * The host keeps an OAuth2 connection's token lifecycle: a plugin's run gets the access token
 * part only, and asks the host over the channel for its token sets. The host answers that run
 * only, within a bound per minute of its clock; an ask that only the plugin's own code could
 * have made kills its process as forged.
 */

/** The OAuth2 schemes of a plugin the host keeps; a connector declares a few. */
const MAX_SCHEMES = 16;
/** Sets a run's asks keep to answer a 401 on: a plugin reports the one it holds, the latest. */
const KEPT_TOKEN_SETS = 8;

/** The token sets a run asked for: the latest few given (a 401 names one), and when the last asks came. */
interface TokenAsks {
  given: Map<number, TokenSet | undefined>;
  /** The host's clock at each of the last `MAX_TOKEN_ASKS` asks. */
  times: number[];
  /** The number of the latest ask: each is above the one before. */
  last?: number;
}

type TokenAsk = Extract<ChildMessage, { type: 'tokens' }>;

/** The OAuth2 schemes a plugin described, by id: plain data, each checked again when a run uses it. */
export function schemesById(described: unknown): Map<string, AuthScheme> {
  const schemes = new Map<string, AuthScheme>();
  if (!Array.isArray(described)) return schemes;
  for (const scheme of described.slice(0, MAX_SCHEMES))
    if (typeof scheme === 'object' && scheme !== null && typeof (scheme as AuthScheme).id === 'string')
      schemes.set((scheme as AuthScheme).id, scheme as AuthScheme);
  return schemes;
}

/** A credential of an OAuth2 scheme: by shape, since the scheme is the plugin's word. */
function isOAuth2(credential: ConnectionCredential): credential is OAuth2Credential {
  return typeof credential === 'object' && credential !== null && 'clientId' in credential;
}

/** A token set without its refresh token, and without the parts it does not have. */
function accessTokenPart(tokens: TokenSet): TokenSet {
  const { accessToken, expiresAt, tokenType, scope } = tokens;
  return {
    accessToken,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(tokenType === undefined ? {} : { tokenType }),
    ...(scope === undefined ? {} : { scope }),
  };
}

/**
 * What the plugin's process gets of a run's credential. Of an OAuth2 one whose tokens the host
 * keeps, what sending needs: the client id and the access token part, never a refresh token or
 * a client secret.
 */
export function sentCredential(
  credential: ConnectionCredential,
  tokens: TokenSource | undefined,
): { credential: ConnectionCredential; hostTokens?: true } {
  if (!tokens) return { credential };
  const { clientId, tokens: set } = credential as OAuth2Credential;
  return { credential: set ? { clientId, tokens: accessTokenPart(set) } : { clientId }, hostTokens: true };
}

/**
 * The token source of a run on an OAuth2 credential: the host's lifecycle on the host's
 * transport, for the scheme the plugin declared at load, its endpoints where the host's connection
 * points them. Undefined for any other credential.
 */
export function hostTokenSource(
  port: Pick<PluginPort, 'description' | 'oauth2'>,
  plan: RemotePlan,
  credential: ConnectionCredential,
  settings: RunSettings,
  redactor: Redactor,
  log: LogSink,
): TokenSource | undefined {
  if (!isOAuth2(credential)) return undefined;
  const scheme = plan.scheme === undefined ? undefined : port.oauth2.get(plan.scheme);
  if (!scheme)
    throw new ConnectionConfigError(
      `connector '${port.description.key}': the credential is an OAuth2 one, but the connection's auth scheme '${excerpt(String(plan.scheme))}' is not an OAuth2 scheme of the connector; nothing was sent`,
    );
  return connectionTokenSource({
    connector: port.description.key,
    scheme,
    ...(plan.authBaseUrl === undefined ? {} : { authBaseUrl: plan.authBaseUrl }),
    connectionId: plan.connection.id,
    environment: plan.environment,
    credential,
    redactor,
    log,
    ...(settings.transport ? { transport: settings.transport } : {}),
    ...(settings.logLevel ? { logLevel: settings.logLevel } : {}),
    ...(settings.clock ? { clock: settings.clock } : {}),
  });
}

/** Why an ask is the plugin's own doing, if it is. */
function forgery(tokens: TokenSource | undefined, asks: TokenAsks, ask: TokenAsk, now: number): string | undefined {
  // The ask `MAX_TOKEN_ASKS` back: a plugin asking at the pace its tokens expire is far from it.
  const { times } = asks;
  const oldest = times.length < MAX_TOKEN_ASKS ? undefined : times[times.length - MAX_TOKEN_ASKS];
  if (!tokens) return 'asked for token sets on a run whose credential has none';
  if (oldest !== undefined && now - oldest < TOKEN_ASK_WINDOW_MS)
    return `asked for more than ${MAX_TOKEN_ASKS} token sets within ${TOKEN_ASK_WINDOW_MS / 1000} s`;
  if (!Number.isSafeInteger(ask.ask) || ask.ask <= (asks.last ?? 0)) return 'asked for token sets out of turn';
  if (ask.refused !== undefined && !asks.given.get(ask.refused))
    return 'reported a refusal of a token set it was never given';
  return undefined;
}

/** Counts an ask at once; the set is held once given. Only the latest sets can be reported refused. */
function count(asks: TokenAsks, ask: number, now: number): void {
  const { given, times } = asks;
  asks.last = ask;
  times.push(now);
  if (times.length > MAX_TOKEN_ASKS) times.shift();
  given.set(ask, undefined);
  for (const kept of given.keys()) if (given.size > KEPT_TOKEN_SETS) given.delete(kept);
}

/**
 * The host's answers to one run's asks for a token set, to that run only: its current set, or
 * after a 401 on the set of an earlier ask, a newer one. A run without the host's tokens, an ask
 * past the bound, or a refusal of a set the host never gave it, is the plugin's own doing: its
 * process is killed.
 */
export function tokenAnswers(
  tokens: TokenSource | undefined,
  exchange: Pick<Exchange, 'id' | 'send'>,
  redactor: Redactor,
  kill: (reason: KillReason, message: string) => void,
): (message: TokenAsk, now: number) => void {
  const asks: TokenAsks = { given: new Map(), times: [] };
  const reply = (message: Omit<Extract<HostMessage, { type: 'tokens' }>, 'type' | 'id'>) =>
    exchange.send({ type: 'tokens', id: exchange.id, ...message });
  return (message, now) => {
    const problem = forgery(tokens, asks, message, now);
    if (problem) {
      kill('forged', `${problem}; its process was killed`);
      return;
    }
    const { ask, refused } = message;
    const used = refused === undefined ? undefined : asks.given.get(refused);
    count(asks, ask, now);
    (used ? tokens!.refreshAfter401(used) : tokens!.current()).then(
      (set) => {
        // A set another process wrote was never this run's: what the plugin echoes of it is hidden too.
        redactor.addRecent(set.accessToken);
        redactor.addRecent(set.refreshToken);
        if (asks.given.has(ask)) asks.given.set(ask, set);
        reply({ ask, tokens: accessTokenPart(set) });
      },
      (error: unknown) => {
        const wire = toWire(error);
        reply({ ask, error: { ...wire, message: redactor.redactString(wire.message) } });
      },
    );
  };
}
