import type { OAuth2AuthorizationCodeScheme } from '../definition/auth.js';
import type { Connector } from '../definition/connector.js';
import type { Environment } from '../definition/environment.js';
import { tokenRequestSend } from '../http/pipeline.js';
import { partsOf, type Transport } from '../http/transport.js';
import { Redactor } from '../secrets.js';
import type { TokenSet } from '../tokens.js';
import { type AuthorizationCallback, authorizationCodeGrant } from './token-requests.js';
import { DEFAULT_TOKEN_TIMEOUT_MS, tokenFetch } from './token-send.js';

/**
 * The end of a sign-in (a CLI's `auth login`): the code the authorization server redirected
 * back with is exchanged, with the PKCE verifier of `authorizationRequest`, through the
 * transport's own sending path. The caller writes the token set to its credential store.
 */
export interface CodeExchange {
  /** The connector whose scheme it is (its key names the token requests' budget). */
  connector: Connector;
  scheme: OAuth2AuthorizationCodeScheme;
  clientId: string;
  /** For a confidential client; a native (public) client has none. */
  clientSecret?: string;
  /** What came back, and what was kept of the authorization request. */
  callback: AuthorizationCallback;
  /** The connection the tokens are for (its rate budget of token requests). */
  connectionId: string;
  /** Default: the process-wide transport. */
  transport?: Transport;
  /** The network policy the token endpoint is reached under; default `production`. */
  environment?: Environment;
}

/**
 * The token set a sign-in's code is exchanged for; `invalid_grant` (a code used or expired) is `credentials_expired`.
 * @example const tokens = await exchangeAuthorizationCode({ connector, scheme, clientId, callback: { callbackUrl, state, verifier, redirectUri }, connectionId })
 */
export async function exchangeAuthorizationCode(exchange: CodeExchange): Promise<TokenSet> {
  const { connector, scheme, clientId, clientSecret, callback, connectionId } = exchange;
  const transport = partsOf(exchange.transport);
  const redactor = new Redactor(clientSecret === undefined ? [] : [clientSecret]);
  redactor.add(callback.verifier);
  const requests = tokenRequestSend({
    transport,
    connector: connector.key,
    connectionId,
    environment: exchange.environment ?? 'production',
    redactor,
    rateLimits: connector.rateLimits,
  });
  const send = requests(DEFAULT_TOKEN_TIMEOUT_MS, { mayHaveArrived: false });
  const { tokens } = await authorizationCodeGrant(
    {
      scheme,
      clientId,
      clientSecret,
      fetch: tokenFetch(send, transport.clock),
      clock: transport.clock,
      redactor,
      subject: `connector '${connector.key}' connection '${connectionId}'`,
    },
    callback,
  );
  return tokens;
}
