import type { Connector } from '@plugboard/sdk';
import { schemeOf } from './credential.js';
import type { RecordedCall } from './fixture.js';
import { normalOrigin } from './recording.js';
import type { Scenario } from './scenario.js';

/**
 * A fixture holds the provider's API calls only. The token requests of the connection's OAuth2
 * scheme (a refresh of an expired access token, a client credentials grant) are the SDK's, not
 * the connector's behaviour, and carry credentials: they are kept out, and replay runs with a
 * token set that never needs the token endpoint (`replayCredential`).
 */

/**
 * The token endpoint of the scheme the scenario's connection picks, when it is an OAuth2 one:
 * `<authBaseUrl>/token` when the host points the connection at a stand-in authorization server.
 */
export function tokenEndpoint(
  connector: Connector,
  scenario: Pick<Scenario, 'connection'>,
  authBaseUrl?: string,
): URL | undefined {
  const scheme = schemeOf(connector, scenario);
  if (scheme?.type !== 'oauth2_authorization_code' && scheme?.type !== 'oauth2_client_credentials') return undefined;
  return new URL(authBaseUrl === undefined ? scheme.tokenUrl : `${authBaseUrl.replace(/\/+$/, '')}/token`);
}

/** The calls to `tokenUrl` (whatever their query or answer) apart from the others; `providerOrigin` is where calls without an `origin` went. */
export function splitTokenCalls(
  calls: readonly RecordedCall[],
  providerOrigin: string,
  tokenUrl: URL | undefined,
): { api: RecordedCall[]; token: RecordedCall[] } {
  const api: RecordedCall[] = [];
  const token: RecordedCall[] = [];
  for (const call of calls) {
    const origin = normalOrigin(call.origin ?? providerOrigin);
    const path = call.request.path.split('?', 1)[0];
    const toToken = tokenUrl !== undefined && origin === normalOrigin(tokenUrl) && path === tokenUrl.pathname;
    (toToken ? token : api).push(call);
  }
  return { api, token };
}
