import { excerpt } from '@plugboard/sdk';
import { isOAuth2Scheme } from '@plugboard/sdk/host';
import { connectorPackageAbove } from '../connectors.js';
import type { Invocation } from '../invocation.js';
import type { MockServer, MockServerOptions } from '../mock/server.js';
import { TOKEN_FAULTS, type TokenFault } from '../mock/oauth-faults.js';
import { UsageError } from '../usage.js';

/**
 * What `plugboard mock` reads for its stand-in authorization server: the connector (`--connector`,
 * or this folder's package) and its OAuth2 scheme, the client (`--client-id`, a confidential
 * one's secret from `PLUGBOARD_CLIENT_SECRET`), `--token-lifetime` and `--token-fault`; and
 * what it prints at start about it.
 */

const DEFAULT_CLIENT = 'plugboard-mock';
const DEFAULT_LIFETIME_S = 3600;
const MAX_LIFETIME_S = 366 * 24 * 3600;

export interface StandInPlan {
  connector: string;
  scheme: string;
  signsIn: boolean;
  oauth: NonNullable<MockServerOptions['oauth']>;
}

/** The stand-in to serve, or undefined when no connector is named or here, or its schemes are not OAuth2. */
export async function standInPlan({
  values,
  io,
  messages,
  findConnector,
}: Invocation): Promise<StandInPlan | undefined> {
  const given = values as Record<string, string | undefined>;
  const asked = ['client-id', 'token-lifetime', 'token-fault'].filter((name) => given[name] !== undefined);
  if (given.connector === undefined && connectorPackageAbove(io.cwd) === undefined) {
    if (asked.length > 0)
      throw new UsageError(
        `--${asked[0]} is for the stand-in authorization server: name the OAuth2 connector with --connector DIR, or run in its folder`,
      );
    return undefined;
  }
  // A folder's connector not built yet (a scaffold just made, say) still gets the API's stand-in;
  // one named with --connector, or asked for the stand-in's options, must load.
  const loaded = await findConnector({ connector: given.connector }).catch((error: unknown) => {
    if (given.connector !== undefined || asked.length > 0) throw error;
    messages.say({
      level: 'warn',
      message: `serving the API without a stand-in authorization server: this folder's connector did not load (${(error as Error).message}); build it for one`,
    });
    return undefined;
  });
  if (!loaded) return undefined;
  const { connector } = loaded;
  const scheme = connector.auth.find(isOAuth2Scheme);
  if (!scheme) {
    if (asked.length > 0)
      throw new UsageError(
        `--${asked[0]}: ${connector.key} does not sign in with OAuth2; its schemes: ${connector.auth.map((one) => one.id).join(', ')}`,
      );
    return undefined;
  }
  const lifetime = given['token-lifetime'] ?? String(DEFAULT_LIFETIME_S);
  if (!/^\d{1,9}$/.test(lifetime) || Number(lifetime) < 1 || Number(lifetime) > MAX_LIFETIME_S)
    throw new UsageError(
      `--token-lifetime must be whole seconds from 1 to ${MAX_LIFETIME_S}, not '${excerpt(lifetime)}'`,
    );
  const fault = given['token-fault'];
  if (fault !== undefined && !(TOKEN_FAULTS as readonly string[]).includes(fault))
    throw new UsageError(`--token-fault must be ${TOKEN_FAULTS.join(', ')}, not '${excerpt(fault)}'`);
  const clientSecret = io.env.PLUGBOARD_CLIENT_SECRET || undefined;
  return {
    connector: connector.key,
    scheme: scheme.id,
    signsIn: scheme.type === 'oauth2_authorization_code',
    oauth: {
      clientId: given['client-id'] || DEFAULT_CLIENT,
      ...(clientSecret ? { clientSecret } : {}),
      lifetimeSeconds: Number(lifetime),
      ...(fault ? { fault: fault as TokenFault } : {}),
    },
  };
}

/** The lines that say where the stand-in's endpoints are and how to sign in against them. */
export function standInLines(plan: StandInPlan, server: MockServer): string {
  const at = server.oauth!;
  const { clientId, clientSecret, lifetimeSeconds, fault } = plan.oauth;
  const client = `client ${clientId}${clientSecret ? ' (its secret: PLUGBOARD_CLIENT_SECRET)' : ' (public, PKCE)'}`;
  const lines = [
    `  OAuth2 stand-in for scheme ${plan.scheme}: authorize ${at.authorizeUrl}, token ${at.tokenUrl}; ${client}; access tokens last ${lifetimeSeconds} s${fault ? `; token requests fail: ${fault}` : ''}`,
    plan.signsIn
      ? `  sign in: PLUGBOARD_CLIENT_ID=${clientId} plugboard auth login ${plan.connector} --auth-base-url ${at.baseUrl}`
      : clientSecret
        ? // The secret's name, never its value: it was given in this terminal's environment.
          `  client credentials: PLUGBOARD_CREDENTIAL='{"clientId":"${clientId}","clientSecret":"<PLUGBOARD_CLIENT_SECRET>"}' plugboard run ${plan.connector} <action> --auth-base-url ${at.baseUrl}`
        : `  client credentials: the grant needs a confidential client; start the mock with PLUGBOARD_CLIENT_SECRET set, and give the same secret in PLUGBOARD_CREDENTIAL with --auth-base-url ${at.baseUrl}`,
  ];
  return `${lines.join('\n')}\n`;
}
