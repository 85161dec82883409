import type { AuthScheme, ConnectionCredential, Connector } from '@plugboard/sdk';
import type { Scenario } from './scenario.js';

/**
 * The placeholder credential replays and probes run with, of the shape the scenario's
 * connection's scheme takes. Fixtures never hold the real one, and an OAuth2 placeholder has
 * no expiry and no refresh token, so the SDK never tries a refresh (the network is closed).
 */

/** The credential (a key scheme's), password (Basic) or access token (OAuth2) every replay runs with. */
export const REPLAY_CREDENTIAL = 'plugboard-replay-credential';

/** The user name and OAuth2 client of a replay. */
const REPLAY_NAME = 'plugboard-replay';

/** A credential as a host's resolver gives it, or the resolver itself. */
export type CredentialSource = ConnectionCredential | (() => ConnectionCredential | Promise<ConnectionCredential>);

/** The scheme the scenario's connection picks with `settings.authScheme`, else the connector's first. */
export function schemeOf(connector: Connector, scenario: Pick<Scenario, 'connection'>): AuthScheme | undefined {
  const picked = scenario.connection?.settings?.authScheme;
  return picked === undefined
    ? connector.auth[0]
    : connector.auth.find((candidate) => candidate.id === String(picked).toLowerCase());
}

/** The placeholder for the scheme the scenario's connection picks. */
export function replayCredential(connector: Connector, scenario: Pick<Scenario, 'connection'>): ConnectionCredential {
  switch (schemeOf(connector, scenario)?.type) {
    case 'basic':
      return { username: REPLAY_NAME, password: REPLAY_CREDENTIAL };
    case 'oauth2_authorization_code':
    case 'oauth2_client_credentials':
      return { clientId: REPLAY_NAME, tokens: { accessToken: REPLAY_CREDENTIAL } };
    default:
      // A key scheme; an unknown `authScheme` is the SDK's to refuse, naming the setting.
      return REPLAY_CREDENTIAL;
  }
}
