import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import * as oauth from 'oauth4webapi';
import { readCookie, setCookie } from './cookies.js';
import { InvalidInputError } from '@plugboard/sdk';
import { type Sealer, sealer } from './sealed.js';

const SUBJECT = 'pageSignIn options';
const SESSION_COOKIE = 'plugboard_session';
const SIGN_IN_COOKIE = 'plugboard_sign_in';
/** Set by signing out: the next sign-in from this browser asks the authorization server for a fresh login. */
const SIGNED_OUT_COOKIE = 'plugboard_signed_out';
/** How long a person has to complete the login at the authorization server. */
const SIGN_IN_SECONDS = 600;
const DEFAULT_SESSION_SECONDS = 8 * 3600;
/** The most of a page path kept to come back to after the login. */
const RETURN_LIMIT = 2048;

/** What `pageSignIn` needs: the authorization server, this page's registered client, the cookie key. */
export interface PageSignInOptions {
  /** The authorization server's issuer; its endpoints come from its OpenID Connect metadata. */
  issuer: string | URL;
  /** The page's client at the authorization server, registered with `redirectUri`. */
  clientId: string;
  /** A confidential client's secret (sent as `client_secret_post`); none for a public client. */
  clientSecret?: string;
  /** The URL the `callback` route answers on, registered with the authorization server. */
  redirectUri: string | URL;
  /** At least 32 characters: keys the cookies (signed session, encrypted sign-in state). */
  cookieSecret: string;
  /** How long a session lasts, in seconds (default 8 hours). */
  sessionSeconds?: number;
  /** Where the session's expiry is read against (default the system clock). */
  clock?: Clock;
}

/** The approval page's sign-in: what identifies a person, starts a sign-in, and ends it. */
export interface PageSignIn {
  /** The subject of the request's session cookie, undefined when it has none valid (forged, expired). */
  identify(req: IncomingMessage): Promise<string | undefined>;
  /** Sends the person to the authorization server's login (code flow, PKCE S256, state); comes back to `req.url`. */
  signIn(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The `redirectUri` route: exchanges the code, sets the session cookie, sends the person back. */
  callback(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * Ends the session in this browser: sets the headers that remove its cookie (the caller writes
   * the answer), and makes the next sign-in from it ask for a fresh login (`prompt=login`), so that
   * someone else can sign in where the authorization server still knows the last person.
   */
  signOut(res: ServerResponse): void;
}

/**
 * Sign-in for a page through the authorization server, with nothing kept server-side: the
 * sign-in's state and PKCE verifier travel in an encrypted cookie, the session is a signed
 * cookie holding the subject and an expiry, so any process holding the secret checks it.
 */
export function pageSignIn(options: PageSignInOptions): PageSignIn {
  const settings = checkOptions(options);
  const cookies = sealer(options.cookieSecret, options.clock ?? systemClock);
  const secure = settings.redirectUri.startsWith('https:');
  const client: oauth.Client = { client_id: options.clientId };
  const clientAuth = options.clientSecret === undefined ? oauth.None() : oauth.ClientSecretPost(options.clientSecret);
  const http = { [oauth.allowInsecureRequests]: settings.issuer.protocol === 'http:' };
  let server: Promise<oauth.AuthorizationServer> | undefined;
  const discover = () => {
    server ??= oauth
      .discoveryRequest(settings.issuer, { ...http, algorithm: 'oidc' })
      .then((response) => oauth.processDiscoveryResponse(settings.issuer, response))
      .catch((error: unknown) => {
        server = undefined;
        throw error;
      });
    return server;
  };

  return {
    async identify(req) {
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      const claims = token === undefined ? undefined : await cookies.verify(token);
      return typeof claims?.sub === 'string' ? claims.sub : undefined;
    },
    async signIn(req, res) {
      const as = await discover();
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(String(as.authorization_endpoint));
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: options.clientId,
        redirect_uri: settings.redirectUri,
        scope: 'openid',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...(readCookie(req.headers.cookie, SIGNED_OUT_COOKIE) === undefined ? {} : { prompt: 'login' }),
      }).toString();
      const sealed = await cookies.seal({ state, verifier, returnTo: returnPath(req.url) }, SIGN_IN_SECONDS);
      res.writeHead(303, {
        location: url.href,
        'set-cookie': setCookie(SIGN_IN_COOKIE, sealed, { maxAge: SIGN_IN_SECONDS, secure }),
        'cache-control': 'no-store',
      });
      res.end();
    },
    async callback(req, res) {
      const pending = await openSignIn(cookies, req);
      if (pending === undefined) return answer(res, 400, 'The sign-in expired or was not started here: sign in again.');
      let subject: string | undefined;
      try {
        const as = await discover();
        let params: URLSearchParams;
        try {
          params = oauth.validateAuthResponse(as, client, new URL(req.url ?? '/', settings.redirectUri), pending.state);
        } catch {
          // Not this sign-in's answer (another state, an error, a forged one): the person's to retry.
          return answer(res, 400, 'The sign-in was refused.');
        }
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          clientAuth,
          params,
          settings.redirectUri,
          pending.verifier,
          http,
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
        subject = oauth.getValidatedIdTokenClaims(result)?.sub;
      } catch (error) {
        const refused = error instanceof oauth.ResponseBodyError;
        // Neither the code nor the answer is echoed: only that it failed.
        return answer(
          res,
          refused ? 400 : 502,
          refused ? 'The sign-in was refused.' : 'The sign-in could not be completed.',
        );
      }
      if (!subject) return answer(res, 502, 'The sign-in could not be completed.');
      const session = await cookies.sign({ sub: subject }, settings.sessionSeconds);
      res.writeHead(303, {
        location: pending.returnTo,
        'set-cookie': [
          setCookie(SESSION_COOKIE, session, { maxAge: settings.sessionSeconds, secure }),
          setCookie(SIGN_IN_COOKIE, '', { maxAge: 0, secure }),
          setCookie(SIGNED_OUT_COOKIE, '', { maxAge: 0, secure }),
        ],
        'cache-control': 'no-store',
      });
      res.end();
    },
    signOut(res) {
      res.setHeader('set-cookie', [
        setCookie(SESSION_COOKIE, '', { maxAge: 0, secure }),
        setCookie(SIGNED_OUT_COOKIE, '1', { maxAge: settings.sessionSeconds, secure }),
      ]);
    },
  };
}

interface PendingSignIn {
  state: string;
  verifier: string;
  returnTo: string;
}

async function openSignIn(cookies: Sealer, req: IncomingMessage): Promise<PendingSignIn | undefined> {
  const token = readCookie(req.headers.cookie, SIGN_IN_COOKIE);
  const claims = token ? await cookies.open(token) : undefined;
  const { state, verifier, returnTo } = claims ?? {};
  if (typeof state !== 'string' || typeof verifier !== 'string' || typeof returnTo !== 'string') return undefined;
  return { state, verifier, returnTo };
}

/** The page to come back to: a path on this site only (never `//host`, which would leave it). */
function returnPath(url: string | undefined): string {
  if (!url || url.length > RETURN_LIMIT || !url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\'))
    return '/';
  return url;
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

function checkOptions(options: PageSignInOptions) {
  const issuer = parseHttpUrl(options.issuer, SUBJECT, 'issuer');
  const redirectUri = parseHttpUrl(options.redirectUri, SUBJECT, 'redirectUri').href;
  if (typeof options.clientId !== 'string' || options.clientId === '')
    refuse(SUBJECT, 'clientId', 'must be a non-empty string');
  if (options.clientSecret !== undefined && (typeof options.clientSecret !== 'string' || options.clientSecret === '')) {
    refuse(SUBJECT, 'clientSecret', 'must be a non-empty string when given');
  }
  if (typeof options.cookieSecret !== 'string' || options.cookieSecret.length < 32) {
    refuse(SUBJECT, 'cookieSecret', 'must be a string of at least 32 characters');
  }
  const sessionSeconds = options.sessionSeconds ?? DEFAULT_SESSION_SECONDS;
  if (!Number.isInteger(sessionSeconds) || sessionSeconds <= 0) {
    refuse(SUBJECT, 'sessionSeconds', 'must be a positive whole number of seconds');
  }
  return { issuer, redirectUri, sessionSeconds };
}

/** An http(s) URL, or an InvalidInputError naming the field. */
function parseHttpUrl(value: string | URL, subject: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return refuse(subject, field, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(subject, field, 'must be an http or https URL');
  return url;
}

function refuse(subject: string, path: string, message: string): never {
  throw new InvalidInputError(subject, [{ path, message }]);
}
