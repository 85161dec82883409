import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@plugboard/sdk/host';
import { readBody, send } from './http.js';
import { authenticatedClient, type StandInClient } from './oauth-client.js';
import { applyTokenFault, type TokenFault } from './oauth-faults.js';
import { Grants } from './oauth-grants.js';
import { Refusal } from './refusal.js';

/**
 * The stand-in authorization server `plugboard mock` serves beside the API when the connector
 * signs in with OAuth2: `GET <origin>/oauth/authorize` (PKCE S256 and state required, consent
 * given at once: a redirect straight back with the code) and `POST <origin>/oauth/token`
 * (authorization code, refresh and client credentials grants). A host points a connection at it
 * with `--auth-base-url <origin>/oauth`. It also tells the API which bearer tokens it issued.
 */

export const OAUTH_PATH = '/oauth';
const AUTHORIZE = `${OAUTH_PATH}/authorize`;
const TOKEN = `${OAUTH_PATH}/token`;
/** A token request is a short form. */
const MAX_FORM = 16 * 1024;

export interface OAuthStandInOptions extends StandInClient {
  /** The access tokens' lifetime, in seconds. */
  lifetimeSeconds: number;
  fault?: TokenFault;
  clock: Clock;
}

/** What the stand-in answered, for the mock's request lines: the grant type of a token request. */
export type Answered = (path: string, status: number, what: string) => void;

/** A loopback redirect URI (RFC 8252 7.3: any port), the only kind a local stand-in sends a code to. */
function loopbackRedirect(value: string | null): URL | undefined {
  if (value === null) return undefined;
  try {
    const url = new URL(value);
    const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
    return url.protocol === 'http:' && loopback && !url.hash ? url : undefined;
  } catch {
    return undefined;
  }
}

export class OAuthStandIn {
  private readonly grants: Grants;

  constructor(private readonly options: OAuthStandInOptions) {
    this.grants = new Grants(options.clock, options.lifetimeSeconds);
  }

  serves(path: string): boolean {
    return path === AUTHORIZE || path === TOKEN;
  }

  /** A 401 for a bearer token the stand-in did not issue or that expired; undefined for any other request. */
  bearerRefusal(request: IncomingMessage): Refusal | undefined {
    const bearer = /^Bearer\s+(\S{1,4096})$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined) return undefined;
    const state = this.grants.accessToken(bearer);
    if (state === 'good') return undefined;
    return new Refusal(401, 'invalid_token', `the access token is ${state}`, {
      'www-authenticate': `Bearer error="invalid_token", error_description="the access token is ${state}"`,
    });
  }

  async answer(request: IncomingMessage, response: ServerResponse, url: URL, answered: Answered): Promise<void> {
    if (url.pathname === AUTHORIZE) return this.authorize(request, response, url, answered);
    let grantType = 'unknown';
    try {
      if (request.method !== 'POST')
        throw new Refusal(405, 'invalid_request', 'the token endpoint takes POST', { allow: 'POST' });
      const form = new URLSearchParams((await readBody(request, MAX_FORM)).toString('utf8'));
      // Printed on the mock's request lines: a grant type's own characters only, never what else a client sent.
      const given = form.get('grant_type') ?? 'none';
      grantType = /^[a-z][a-z0-9_:.-]{0,63}$/i.test(given) ? given : 'unreadable';
      const clientId = authenticatedClient(request, form, this.options);
      await applyTokenFault(this.options.fault, grantType, this.options.clock);
      const granted = this.grant(grantType, clientId, form);
      answered(url.pathname, 200, grantType);
      send(response, 200, granted, { 'cache-control': 'no-store' });
    } catch (error) {
      const refusal =
        error instanceof Refusal ? error : new Refusal(500, 'server_error', 'the stand-in failed to answer');
      answered(url.pathname, refusal.status, `${grantType} ${refusal.error}`);
      const body = { error: refusal.error, error_description: refusal.message };
      send(response, refusal.status, body, { 'cache-control': 'no-store', ...refusal.headers });
    }
  }

  private grant(grantType: string, clientId: string, form: URLSearchParams) {
    const need = (name: string) => {
      const value = form.get(name);
      if (!value) throw new Refusal(400, 'invalid_request', `${name} is required`);
      return value;
    };
    switch (grantType) {
      case 'authorization_code':
        return this.grants.exchangeCode(clientId, need('code'), need('redirect_uri'), need('code_verifier'));
      case 'refresh_token':
        return this.grants.refresh(clientId, need('refresh_token'));
      case 'client_credentials':
        if (this.options.clientSecret === undefined)
          throw new Refusal(400, 'unauthorized_client', 'a public client has no client credentials grant');
        return this.grants.clientCredentials(clientId, form.get('scope') ?? undefined);
      default:
        throw new Refusal(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
    }
  }

  /** Consent is automatic: a good request is redirected back at once with a code and its state. */
  private authorize(request: IncomingMessage, response: ServerResponse, url: URL, answered: Answered): void {
    const query = url.searchParams;
    const redirect = loopbackRedirect(query.get('redirect_uri'));
    const clientProblem =
      request.method !== 'GET'
        ? 'the authorization endpoint takes GET'
        : query.get('client_id') !== this.options.clientId
          ? 'unknown client_id'
          : redirect === undefined
            ? 'redirect_uri must be an http URL on a loopback address (127.0.0.1, [::1] or localhost)'
            : undefined;
    // Without a known client and a redirect URI to trust, the error is shown, never redirected (RFC 6749 4.1.2.1).
    if (clientProblem || !redirect) {
      answered(url.pathname, 400, 'authorize invalid_request');
      send(response, 400, { error: 'invalid_request', error_description: clientProblem });
      return;
    }
    const state = query.get('state');
    const problem =
      query.get('response_type') !== 'code'
        ? 'unsupported_response_type'
        : !state || !/^[A-Za-z0-9_-]{43}$/.test(query.get('code_challenge') ?? '')
          ? 'invalid_request'
          : query.get('code_challenge_method') !== 'S256'
            ? 'invalid_request'
            : undefined;
    if (problem) redirect.searchParams.set('error', problem);
    else
      redirect.searchParams.set(
        'code',
        this.grants.code(
          this.options.clientId,
          query.get('redirect_uri')!,
          query.get('code_challenge')!,
          query.get('scope') ?? undefined,
        ),
      );
    if (state) redirect.searchParams.set('state', state);
    answered(url.pathname, 302, problem ? `authorize ${problem}` : 'authorize');
    response.writeHead(302, { location: redirect.href, 'cache-control': 'no-store', 'content-length': '0' });
    response.end();
  }
}
