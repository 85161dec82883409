import type { IncomingMessage } from 'node:http';
import { sameSecret } from './oauth-grants.js';
import { Refusal } from './refusal.js';

/**
 * The client a token request comes from, authenticated as RFC 6749 2.3.1 says: HTTP Basic, or
 * `client_id` and `client_secret` in the form, never both. The stand-in knows one client: public
 * (PKCE, no secret) unless it was started with a secret, then confidential.
 */

export interface StandInClient {
  clientId: string;
  /** A confidential client's secret; none for a public client. */
  clientSecret?: string;
}

/** A client that authenticated with HTTP Basic is told the scheme to use (RFC 6749 5.2). */
function refused(message: string, basic: boolean): Refusal {
  return new Refusal(401, 'invalid_client', message, basic ? { 'www-authenticate': 'Basic realm="token"' } : {});
}

/** The id and secret a token request presents. */
function presented(request: IncomingMessage, form: URLSearchParams) {
  const header = request.headers.authorization ?? '';
  const basic = /^Basic\s+([A-Za-z0-9+/=]{1,1024})$/i.exec(header)?.[1];
  if (basic === undefined) {
    const secret = form.get('client_secret') ?? undefined;
    return { id: form.get('client_id') ?? undefined, secret, basic: false };
  }
  const text = Buffer.from(basic, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0 || form.has('client_secret')) throw refused('the client authenticated in two ways, or badly', true);
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw refused('the Basic credentials are not URL-encoded', true);
    }
  };
  return { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)), basic: true };
}

/** The client's id when it is the stand-in's client and proved it; `invalid_client` otherwise. */
export function authenticatedClient(request: IncomingMessage, form: URLSearchParams, client: StandInClient): string {
  const { id, secret, basic } = presented(request, form);
  if (id === undefined || id === '') throw refused('no client_id', basic);
  const formId = form.get('client_id');
  if (formId !== null && formId !== id) throw refused('client_id differs from the authenticated client', basic);
  if (id !== client.clientId) throw refused('unknown client', basic);
  if (client.clientSecret === undefined) {
    if (secret !== undefined) throw refused('this client is public: it has no secret', basic);
  } else if (secret === undefined || !sameSecret(secret, client.clientSecret))
    throw refused('the client secret is missing or wrong', basic);
  return id;
}
