import { type Connector, createTransport, type OAuth2AuthorizationCodeScheme, type TokenSet } from '@plugboard/sdk';
import { authorizationRequest, exchangeAuthorizationCode } from '@plugboard/sdk/host';
import type { OAuthRig } from '../../../packages/sdk/test/support/oauth.js';

/**
 * Signs in to `connector`'s OAuth2 scheme at the rig's endpoints as a person would, once: the
 * authorization request (PKCE), the rig's consent without a browser, the code's exchange.
 */
export async function signIn(rig: OAuthRig, connector: Connector): Promise<TokenSet> {
  const declared = connector.auth.find((scheme) => scheme.id === 'oauth2') as OAuth2AuthorizationCodeScheme;
  // At the rig's endpoints, whatever issuer the connector was loaded with.
  const scheme = { ...declared, authorizeUrl: rig.auth.authorizeUrl, tokenUrl: rig.auth.tokenUrl };
  const clientId = rig.auth.clients.native.clientId;
  const redirectUri = 'http://127.0.0.1:61000/callback';
  const request = await authorizationRequest(scheme, { clientId, redirectUri });
  const callbackUrl = await rig.auth.completeAuthorization(request.url);
  const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
  try {
    return await exchangeAuthorizationCode({
      connector,
      scheme,
      clientId,
      callback: { callbackUrl, state: request.state, verifier: request.verifier, redirectUri },
      connectionId: 'default',
      transport,
      environment: 'sandbox',
    });
  } finally {
    await transport.close();
  }
}
