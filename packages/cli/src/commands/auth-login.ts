import { mkdir } from 'node:fs/promises';
import {
  type Connector,
  createTransport,
  type Environment,
  excerpt,
  type OAuth2AuthorizationCodeScheme,
  type TokenSet,
} from '@plugboard/sdk';
import { authorizationRequest, exchangeAuthorizationCode, signsIn } from '@plugboard/sdk/host';
import { standInScheme } from '../auth-base-option.js';
import { openBrowser } from '../browser.js';
import { connectionIdOption } from '../connection-name.js';
import { wantsJson, writeJsonLine } from '../io.js';
import { connectorCredentials, keepTokens, writeKept } from '../kept-connections.js';
import { listenForRedirect } from '../loopback-redirect.js';
import { allowedNetwork } from '../network.js';
import type { Invocation } from '../invocation.js';
import { stateFolder } from '../state.js';
import { UsageError } from '../usage.js';

/** The path the authorization server redirects back to on the loopback listener. */
const REDIRECT_PATH = '/callback';

/** The connector's authorization code scheme: `--scheme ID`, or its only one. */
function signInScheme(connector: Connector, id: string | undefined): OAuth2AuthorizationCodeScheme {
  const schemes = connector.auth.filter(signsIn);
  const chosen = id === undefined ? schemes[0] : schemes.find((scheme) => scheme.id === id.toLowerCase());
  if (!chosen || (id === undefined && schemes.length > 1))
    throw new UsageError(
      schemes.length === 0
        ? `${connector.key} has no sign-in (OAuth2 authorization code) scheme; its schemes: ${connector.auth.map((scheme) => scheme.id).join(', ')}`
        : `${id === undefined ? 'name the scheme to sign in with' : `--scheme ${excerpt(id)}: no such sign-in scheme`}: --scheme ${schemes.map((scheme) => scheme.id).join(' or ')}`,
    );
  return chosen;
}

/**
 * `plugboard auth login <connector> [--connection-id NAME] [--auth-base-url URL]`: the OAuth2 authorization code flow
 * with PKCE S256 through a loopback redirect (RFC 8252): the URL to open is printed (and opened
 * in a browser when a person is at a terminal), the code that comes back with the right state
 * is exchanged, and the token set is kept in the state folder's credential store for `run` and
 * `check`. The client id comes from `--client-id` or `PLUGBOARD_CLIENT_ID`, a confidential
 * client's secret from `PLUGBOARD_CLIENT_SECRET` only. `--auth-base-url` signs in at a stand-in
 * and is kept with the connection, so every refresh goes there too.
 */
export async function authLoginCommand({
  args,
  values,
  io,
  messages,
  findConnector,
  signal,
}: Invocation): Promise<void> {
  const given = values as Record<string, string | undefined>;
  const { connector } = await findConnector({ key: args[0], connector: given.connector, plugins: given.plugins });
  const environment = (given.environment ?? 'sandbox') as Environment;
  const authBaseUrl = given['auth-base-url'];
  const scheme = standInScheme(signInScheme(connector, given.scheme), authBaseUrl, environment);
  const connection = connectionIdOption(given, messages, true) ?? 'default';
  const clientId = given['client-id'] || io.env.PLUGBOARD_CLIENT_ID;
  if (!clientId)
    throw new UsageError(
      `name the OAuth2 client ${connector.name} registered for you: --client-id ID, or PLUGBOARD_CLIENT_ID`,
    );
  const clientSecret = io.env.PLUGBOARD_CLIENT_SECRET || undefined;
  const folder = stateFolder(io, given.state, 'a sign-in');
  await mkdir(folder.dir, { recursive: true, mode: 0o700 });

  const redirect = await listenForRedirect(REDIRECT_PATH, signal);
  const transport = createTransport({ via: 'http', network: { allow: allowedNetwork(io.env) } });
  let tokens: TokenSet;
  try {
    const request = await authorizationRequest(scheme, { clientId, redirectUri: redirect.uri });
    messages.say({ level: 'info', message: `open this URL to sign in to ${connector.name}`, url: request.url.href });
    if (openBrowser(io, request.url.href))
      messages.say({ level: 'info', message: 'opened it in your browser; waiting for the sign-in to come back' });
    const callbackUrl = await redirect.received(request.state);
    tokens = await exchangeAuthorizationCode({
      connector,
      scheme,
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      callback: { callbackUrl, state: request.state, verifier: request.verifier, redirectUri: redirect.uri },
      connectionId: connection,
      transport,
      environment,
    });
    await keepTokens(await connectorCredentials(folder.dir, connector.key), connection, tokens);
    await writeKept(folder.dir, {
      connector: connector.key,
      connection,
      scheme: scheme.id,
      clientId,
      ...(authBaseUrl === undefined ? {} : { authBaseUrl }),
      signedInAt: new Date().toISOString(),
    });
  } catch (error) {
    // The listener stops whatever failed: a browser waiting on the redirect is told to look at the terminal.
    await redirect.finish(false, `The sign-in to ${connector.name} failed; see the terminal.`);
    throw error;
  } finally {
    await transport.close();
  }
  await redirect.finish(true, `Signed in to ${connector.name}. You can close this tab.`);
  const expiresAt = tokens.expiresAt === undefined ? null : new Date(tokens.expiresAt).toISOString();
  const signed = { connector: connector.key, connection, scheme: scheme.id, expiresAt, scope: tokens.scope ?? null };
  if (wantsJson({ values, io })) return writeJsonLine(io.stdout, signed);
  io.stdout.write(
    `Signed in to ${connector.name} (connection ${connection}, kept in ${folder.dir})${expiresAt ? `; the access token expires at ${expiresAt} and is renewed as it is used` : ''}.\n`,
  );
}
