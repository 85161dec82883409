// The OAuth rig of the SDK's tests (packages/sdk/test/support/oauth.ts: oidc-provider with
// rotating refresh tokens, and a resource server verifying each access token), loaded by Node's
// own type stripping: a resolve hook maps the rig's `./x.js` imports to the `.ts` files beside
// them. Also a sign-in through it with the SDK's public `authorizationRequest` and
// `exchangeAuthorizationCode`. Not a benchmark itself.
import { built, importTypeStripped } from './lib.mjs';

export const { startOAuthRig } = await importTypeStripped('packages/sdk/test/support/oauth.ts');
const host = await built('packages/sdk/dist/host.js');

/** A token set of the rig's native client, signed in as a person would (PKCE S256). */
export async function signIn(rig, connector, transport) {
  const scheme = connector.auth[0];
  const clientId = rig.auth.clients.native.clientId;
  const redirectUri = 'http://127.0.0.1:61000/callback';
  const request = await host.authorizationRequest(scheme, { clientId, redirectUri });
  const callbackUrl = await rig.auth.completeAuthorization(request.url);
  return host.exchangeAuthorizationCode({
    connector,
    scheme,
    clientId,
    callback: { callbackUrl, state: request.state, verifier: request.verifier, redirectUri },
    connectionId: 'conn-1',
    transport,
    environment: 'sandbox',
  });
}
