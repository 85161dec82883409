import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, exportJWK, generateKeyPair, type JWTPayload, jwtVerify } from 'jose';
import Provider, {
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  errors,
} from 'oidc-provider';
import { type Clock, systemClock } from '../../src/clock.js';

/**
 * A real OAuth 2 authorization server (oidc-provider) and a protected resource server (verifying
 * with jose) for tests, both on 127.0.0.1 and free ports, in memory only, stopped by `stop()`.
 *
 * The authorization server's port is a small front of this rig's own: it counts and, when a test
 * switches a fault on, disturbs the token endpoint's answers, completes the end-user's login and
 * consent without a browser, and passes everything else to oidc-provider listening on a second
 * port. Nothing is logged: tokens, codes and secrets stay in the answers and in `clients`.
 */

/** Grant types the token endpoint counts apart; `other` is anything else (or none). */
export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';

/** What the token endpoint does wrong while a fault is switched on. */
export type TokenFault =
  /** Answers `status` (default 503) with a JSON `server_error` body, without asking oidc-provider. */
  | { kind: 'status'; status?: number }
  /** Resets the connection (TCP RST) without an answer, without asking oidc-provider. */
  | { kind: 'reset' }
  /**
   * Holds the request until `release()`: `before` (default) oidc-provider sees it (then it is
   * dropped unseen if its connection is known to be closed by then), or `after` oidc-provider
   * answered it (a refresh has rotated the refresh token then, whatever becomes of the answer).
   */
  | { kind: 'hold'; when?: 'before' | 'after' }
  /** Answers 400 `invalid_grant` without asking oidc-provider (meant for refreshes: see `FaultOptions`). */
  | { kind: 'invalid_grant' }
  /** oidc-provider's successful answer, without `token_type`. */
  | { kind: 'no_token_type' }
  /** oidc-provider's successful answer, with `expires_in` as a string (`"2"`). */
  | { kind: 'expires_in_string' };

export type TokenFaultKind = TokenFault['kind'];

export interface FaultOptions {
  /** Token requests the fault applies to, then it is off (default: every one until `off()`). */
  times?: number;
  /** Only token requests of this grant type (default: any; `invalid_grant`: `refresh_token`). */
  grantType?: GrantType;
}

/** A fault switched on with `AuthorizationServer.fault`. */
export interface FaultSwitch {
  /** Token requests it applied to so far. */
  readonly served: number;
  /** Resolves once it applied to `count` requests (a hold: that many are being held). */
  reached(count?: number): Promise<void>;
  /** A hold: lets the held requests go on. Every fault: applies to no further request. */
  release(): void;
  /** Applies to no further request (held ones stay held until `release()`). */
  off(): void;
}

/** Exact figures of what the authorization server saw and served, as they happen. */
export interface AuthorizationServerCounts {
  /** Token endpoint requests by grant type, faults included. */
  token: Record<GrantType | 'other', number>;
  /**
   * Refresh requests oidc-provider refused because their refresh token had been exchanged
   * (rotated) already; it revokes the whole grant then (RFC 9700 4.14.2). Requests an injected
   * fault answered never reach it, so they are not counted here.
   */
  refreshReuse: number;
  /** Error answers oidc-provider itself gave at the token endpoint (invalid_grant, invalid_client, ...). */
  refused: number;
  /** Requests each injected fault applied to. Failures served = `refused` + these. */
  injected: Record<TokenFaultKind, number>;
}

/** A client that gets tokens with its own credentials (client_credentials grant). */
export interface ConfidentialClient {
  clientId: string;
  clientSecret: string;
  /** How it authenticates at the token endpoint. */
  authMethod: 'client_secret_basic' | 'client_secret_post';
}

/** A public native client (RFC 8252) for the authorization code grant with PKCE S256 and rotating refresh tokens. */
export interface PublicClient {
  clientId: string;
  /** Registered `http://127.0.0.1<redirectPath>`; any port is accepted at request time (RFC 8252 7.3). */
  redirectUri: string;
}

export interface AuthorizationServerOptions {
  /**
   * The resource (RFC 8707) every access token is for, its `aud` (default `urn:plugboard:test-api`);
   * a function when it is known only once the resource server listens, after this one started.
   */
  resource?: string | (() => string);
  /** Scopes the resource knows and clients may ask for (default `items:read items:write`). */
  scopes?: string[];
  /** Access tokens' lifetime in seconds (default 2). */
  accessTokenTtl?: number;
  /** The native client's redirect path on 127.0.0.1 (default `/callback`). */
  redirectPath?: string;
  /** The account the programmatic end-user logs in as (default `user-1`; a browser may name another in `x-rig-account`). */
  accountId?: string;
  /** More clients, as oidc-provider's client metadata (e.g. a web page's sign-in client). */
  extraClients?: ClientMetadata[];
  /**
   * Gives access tokens' `iat` (and `exp` = `iat` + lifetime; default the system clock): share a
   * `manualClock()` with the resource server, and a token got after the clock moved is fresh.
   * Everything else (codes, refresh tokens, sessions) expires on the real time, in hours.
   */
  clock?: Clock;
}

export interface AuthorizeOptions {
  /** BASE64URL(SHA256(code_verifier)). */
  codeChallenge: string;
  /** A loopback redirect URI on any port, e.g. `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  state?: string;
  /** Space separated (default: every scope of the resource). */
  scope?: string;
  /** The end-user approves (default) or denies. */
  decision?: 'approve' | 'deny';
}

/** What the redirect to the client carried. */
export interface AuthorizationResult {
  code: string;
  state: string | null;
  /** RFC 9207 `iss`. */
  iss: string | null;
  /** The whole redirect URL, as a browser would have opened it. */
  redirectUrl: URL;
}

/** Called once a token endpoint answer has been written out (not for a reset connection). */
export type TokenAnswerListener = (answer: { grantType: GrantType | 'other'; status: number }) => void;

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`; metadata at `/.well-known/oauth-authorization-server`. */
  issuer: string;
  tokenUrl: string;
  authorizeUrl: string;
  jwksUrl: string;
  /** The `aud` of every access token. */
  resource: string;
  scopes: string[];
  clients: { basic: ConfidentialClient; post: ConfidentialClient; native: PublicClient };
  counts: AuthorizationServerCounts;
  /** Switches `fault` on for later token requests; several are tried in the order they were switched on. */
  fault(fault: TokenFault, options?: FaultOptions): FaultSwitch;
  /** Calls `listener` after each token answer is written (kill a process right then); returns what removes it. */
  onTokenAnswer(listener: TokenAnswerListener): () => void;
  /**
   * Drives an authorization request URL (as a client built it) through login and consent with
   * no browser, and gives the URL the end-user would be redirected to (carrying code or error).
   */
  completeAuthorization(authorizationUrl: string | URL, decision?: 'approve' | 'deny'): Promise<URL>;
  /** Builds the native client's authorization request (PKCE S256), completes it, and gives the code. */
  authorizeProgrammatically(client: PublicClient, options: AuthorizeOptions): Promise<AuthorizationResult>;
  stop(): Promise<void>;
}

const TOKEN_PATH = '/token';
const AUTHORIZE_PATH = '/auth';
const JWKS_PATH = '/jwks';
const INTERACTION = /^\/interaction\/([\w-]+)$/;
const DECISION_HEADER = 'x-rig-decision';
/** Who a browser logs in as, when not the rig's `accountId`. */
export const ACCOUNT_HEADER = 'x-rig-account';
const BODY_LIMIT = 64 * 1024;
const GRANT_TYPES: readonly string[] = ['client_credentials', 'authorization_code', 'refresh_token'];

interface ActiveFault {
  fault: TokenFault;
  grantType: GrantType | undefined;
  left: number;
  served: number;
  reached: number;
  gate: Promise<void>;
  open: () => void;
  waiters: { count: number; resolve: () => void }[];
}

/** Starts oidc-provider behind the rig's front; resolves once both listen. */
export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const given = options.resource ?? 'urn:plugboard:test-api';
  const resourceOf = typeof given === 'function' ? given : () => given;
  const scopes = options.scopes ?? ['items:read', 'items:write'];
  const accessTokenTtl = options.accessTokenTtl ?? 2;
  const accountId = options.accountId ?? 'user-1';
  const clock = options.clock ?? systemClock;

  const front = createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;

  const secret = () => randomBytes(24).toString('hex');
  const clients = {
    basic: { clientId: 'service-basic', clientSecret: secret(), authMethod: 'client_secret_basic' as const },
    post: { clientId: 'service-post', clientSecret: secret(), authMethod: 'client_secret_post' as const },
    native: { clientId: 'native-cli', redirectUri: `http://127.0.0.1${options.redirectPath ?? '/callback'}` },
  };
  const serviceClient = (client: ConfidentialClient) => ({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    token_endpoint_auth_method: client.authMethod,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: scopes.join(' '),
  });

  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'rig-es256' };

  const configuration: Configuration = {
    clients: [
      serviceClient(clients.basic),
      serviceClient(clients.post),
      {
        client_id: clients.native.clientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [clients.native.redirectUri],
        scope: scopes.join(' '),
      },
      ...(options.extraClients ?? []),
    ],
    adapter: memoryAdapter(),
    scopes: ['openid', 'offline_access', ...scopes],
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    jwks: { keys: [signingKey] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resourceOf(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resourceOf()) throw new errors.InvalidTarget();
          return {
            scope: scopes.join(' '),
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    formats: {
      customizers: {
        jwt: (_ctx, _token, jwt) => {
          const iat = Math.floor(clock.now() / 1000);
          jwt.payload.exp = iat + (Number(jwt.payload.exp) - Number(jwt.payload.iat));
          jwt.payload.iat = iat;
        },
      },
    },
    pkce: { required: () => true },
    // Lifetimes in seconds, set so that oidc-provider has no default to warn about.
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 3600,
      Grant: 86_400,
      RefreshToken: 86_400,
    },
    // Every refresh answers a new refresh token; a rotated one presented again revokes the grant.
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // An error page for the end-user, who is a program here: the error as JSON.
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    // Cookies are signed; the keys live as long as the server.
    cookies: { keys: [secret()] },
  };
  const provider = new Provider(issuer, configuration);
  const inner = createServer(provider.callback());
  const innerPort = await listen(inner);
  const agent = new Agent({ keepAlive: true });

  const counts: AuthorizationServerCounts = {
    token: { client_credentials: 0, authorization_code: 0, refresh_token: 0, other: 0 },
    refreshReuse: 0,
    refused: 0,
    injected: { status: 0, reset: 0, hold: 0, invalid_grant: 0, no_token_type: 0, expires_in_string: 0 },
  };
  const faults: ActiveFault[] = [];
  const listeners = new Set<TokenAnswerListener>();
  provider.on('grant.error', (ctx, error) => {
    if (error.error === 'invalid_grant' && ctx.oidc.entities.RefreshToken?.consumed) counts.refreshReuse += 1;
  });
  let stopped = false;

  /** Passes a request to oidc-provider and gives its whole answer. */
  const forward = (req: IncomingMessage, body: Buffer | undefined) =>
    new Promise<{ status: number; headers: string[]; body: Buffer }>((resolve, reject) => {
      const upstream = request(
        { host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers: req.headers, agent },
        async (answer) => {
          try {
            const chunks: Buffer[] = [];
            for await (const chunk of answer) chunks.push(chunk as Buffer);
            resolve({ status: answer.statusCode ?? 502, headers: answer.rawHeaders, body: Buffer.concat(chunks) });
          } catch (error) {
            reject(error);
          }
        },
      );
      upstream.on('error', reject);
      if (body) upstream.end(body);
      else req.pipe(upstream);
    });

  const pickFault = (grantType: GrantType | 'other') => {
    const found = faults.find(
      (active) => active.left > 0 && (active.grantType === undefined || active.grantType === grantType),
    );
    if (!found) return undefined;
    found.left -= 1;
    found.served += 1;
    counts.injected[found.fault.kind] += 1;
    if (found.fault.kind !== 'hold') reach(found);
    return found;
  };
  /** Tells `reached()` that the fault applied once more (a hold: once the request is held). */
  const reach = (active: ActiveFault) => {
    active.reached += 1;
    for (const waiter of active.waiters.filter((entry) => entry.count <= active.reached)) waiter.resolve();
    active.waiters = active.waiters.filter((entry) => entry.count > active.reached);
  };
  const hold = (active: ActiveFault) => {
    reach(active);
    return active.gate;
  };

  const answerToken = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBounded(req);
    if (body === undefined) return void sendJson(res, 413, { error: 'invalid_request' });
    const params = new URLSearchParams(body.toString('utf8'));
    const named = params.get('grant_type') ?? '';
    const grantType = GRANT_TYPES.includes(named) ? (named as GrantType) : 'other';
    counts.token[grantType] += 1;
    res.once('finish', () => {
      for (const listener of listeners) listener({ grantType, status: res.statusCode });
    });

    const active = pickFault(grantType);
    const fault = active?.fault;
    if (fault?.kind === 'reset') return void req.socket.resetAndDestroy();
    if (fault?.kind === 'status') return void sendJson(res, fault.status ?? 503, { error: 'server_error' });
    if (fault?.kind === 'invalid_grant') {
      return void sendJson(res, 400, { error: 'invalid_grant', error_description: 'grant request is invalid' });
    }
    const holdAt = fault?.kind === 'hold' ? (fault.when ?? 'before') : undefined;
    if (holdAt === 'before') {
      await hold(active!);
      if (res.destroyed || stopped) return void res.destroy();
    }
    const answer = await forward(req, body);
    if (answer.status >= 400) counts.refused += 1;
    if (holdAt === 'after') await hold(active!);
    if (res.destroyed || stopped) return void res.destroy();
    if (answer.status === 200 && (fault?.kind === 'no_token_type' || fault?.kind === 'expires_in_string')) {
      const tokens = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
      if (fault.kind === 'no_token_type') delete tokens.token_type;
      else tokens.expires_in = String(tokens.expires_in);
      return void sendJson(res, 200, tokens, { 'cache-control': 'no-store' });
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  };

  /** The end-user: logs in as `accountId` and consents to what the client asked, or denies. */
  const interact = async (req: IncomingMessage, res: ServerResponse) => {
    const interaction = await provider.interactionDetails(req, res);
    const { prompt, params, session } = interaction;
    if (req.headers[DECISION_HEADER] === 'deny') {
      const result = { error: 'access_denied', error_description: 'the end-user denied the request' };
      return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }
    if (prompt.name === 'login') {
      const account = req.headers[ACCOUNT_HEADER];
      const login = { accountId: typeof account === 'string' && account !== '' ? account : accountId };
      return provider.interactionFinished(req, res, { login }, { mergeWithLastSubmission: false });
    }
    const grant = interaction.grantId
      ? await provider.Grant.find(interaction.grantId)
      : new provider.Grant({ accountId: session?.accountId ?? accountId, clientId: String(params.client_id) });
    if (!grant) throw new Error('the interaction names a grant that does not exist');
    const details = prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    for (const [indicator, wanted] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, wanted.join(' '));
    }
    const grantId = await grant.save();
    // Kept with the login just made: a request asking for a fresh login (`prompt=login`) is satisfied by it.
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  front.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    const work =
      req.method === 'POST' && path === TOKEN_PATH
        ? answerToken(req, res)
        : req.method === 'GET' && INTERACTION.test(path)
          ? interact(req, res)
          : forward(req, undefined).then((answer) => {
              res.writeHead(answer.status, answer.headers);
              res.end(answer.body);
            });
    work.catch(() => {
      if (!res.headersSent && !res.destroyed) sendJson(res, 502, { error: 'server_error' });
      else res.destroy();
    });
  });

  const completeAuthorization = async (authorizationUrl: string | URL, decision: 'approve' | 'deny' = 'approve') => {
    const jar = new Map<string, string>();
    let next = new URL(authorizationUrl);
    // Login, consent and their resumes: a handful of redirects, bounded in case of a loop.
    for (let hop = 0; hop < 12; hop += 1) {
      if (next.origin !== issuer) return next;
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const answer = await fetch(next, {
        redirect: 'manual',
        headers: { ...(cookie ? { cookie } : {}), [DECISION_HEADER]: decision },
      });
      const text = await answer.text();
      for (const line of answer.headers.getSetCookie()) keepCookie(jar, line);
      const location = answer.headers.get('location');
      if (answer.status < 300 || answer.status >= 400 || !location) {
        // oidc-provider's error page is JSON here (renderError); its error code is no secret.
        const error = /"error":"(\w+)"/.exec(text)?.[1] ?? 'no error code';
        throw new Error(`the authorization request ended with ${answer.status} (${error}) at ${next.pathname}`);
      }
      next = new URL(location, next);
    }
    throw new Error('the authorization request did not redirect to the client within 12 steps');
  };

  const server: AuthorizationServer = {
    issuer,
    tokenUrl: `${issuer}${TOKEN_PATH}`,
    authorizeUrl: `${issuer}${AUTHORIZE_PATH}`,
    jwksUrl: `${issuer}${JWKS_PATH}`,
    get resource() {
      return resourceOf();
    },
    scopes,
    clients,
    counts,
    fault(fault, faultOptions = {}) {
      let open = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      const active: ActiveFault = {
        fault,
        grantType: faultOptions.grantType ?? (fault.kind === 'invalid_grant' ? 'refresh_token' : undefined),
        left: faultOptions.times ?? Number.POSITIVE_INFINITY,
        served: 0,
        reached: 0,
        gate,
        open,
        waiters: [],
      };
      faults.push(active);
      return {
        get served() {
          return active.served;
        },
        reached(count = 1) {
          if (active.reached >= count) return Promise.resolve();
          return new Promise<void>((resolve) => active.waiters.push({ count, resolve }));
        },
        release() {
          active.left = 0;
          active.open();
        },
        off() {
          active.left = 0;
        },
      };
    },
    onTokenAnswer(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    completeAuthorization,
    async authorizeProgrammatically(client, authorize) {
      const url = new URL(server.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: authorize.redirectUri,
        scope: authorize.scope ?? scopes.join(' '),
        code_challenge: authorize.codeChallenge,
        code_challenge_method: 'S256',
        ...(authorize.state === undefined ? {} : { state: authorize.state }),
      }).toString();
      const redirectUrl = await completeAuthorization(url, authorize.decision);
      const code = redirectUrl.searchParams.get('code');
      if (!code) {
        throw new Error(
          `the authorization ended without a code: ${redirectUrl.searchParams.get('error') ?? 'no error'}`,
        );
      }
      return {
        code,
        state: redirectUrl.searchParams.get('state'),
        iss: redirectUrl.searchParams.get('iss'),
        redirectUrl,
      };
    },
    async stop() {
      stopped = true;
      for (const active of faults) active.open();
      await Promise.all([close(front), close(inner)]);
      agent.destroy();
    },
  };
  return server;
}

/** Counts of the resource server's decisions. */
export interface ResourceServerCounts {
  /** Calls whose bearer token jose verified. */
  accepted: number;
  /** Calls answered 401: no token, or one jose refused (signature, issuer, audience, expiry on `clock`). */
  refused: number;
}

export interface ResourceServerOptions {
  issuer: string;
  jwksUrl: string;
  /** The `aud` tokens must carry (the authorization server's `resource`). */
  audience: string;
  /** Decides when a token has expired (default the system clock): the authorization server's clock. */
  clock?: Clock;
  /**
   * Verifies each token's signature once and keeps its claims (expiry still judged at every
   * call), as a provider's gateway caches: a benchmark's burst of calls on one token then costs
   * this process little more than the HTTP exchange.
   */
  verifyOnce?: boolean;
}

/**
 * The protected API: `GET /me` (who the token speaks for; cheap, for a connection check) and
 * `GET /items` (a short list), 200 JSON with a valid bearer token, else 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"` (plain `Bearer` when no token came, RFC 6750 3.1).
 */
export interface ResourceServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  counts: ResourceServerCounts;
  /** How many times a token's signature was checked (with `verifyOnce`, once per token however its calls came). */
  readonly signatureChecks: number;
  /** Answers the next `times` calls (default 1) 401 invalid_token whatever their token, as after a revocation. */
  refuse(times?: number): void;
  stop(): Promise<void>;
}

export const RESOURCE_ITEMS = [
  { id: 'item-1', name: 'First', updated_at: '2026-01-01T00:00:00.000Z' },
  { id: 'item-2', name: 'Second', updated_at: '2026-01-02T00:00:00.000Z' },
];

interface Verification {
  issuer: string;
  audience: string;
  keys: ReturnType<typeof createRemoteJWKSet>;
  clock: Clock;
  /** Each token's verification (its claims, or undefined when refused), when `verifyOnce`. */
  verified: Map<string, Promise<Claims | undefined>> | undefined;
  signatureChecks: number;
}

type Claims = JWTPayload & { client_id?: string; scope?: string };

/** Tokens whose claims `verifyOnce` keeps before it starts again. */
const VERIFIED_KEPT = 10_000;

/** A resource server listening already, whose verification settings come once they are known. */
async function listenResourceServer(): Promise<ResourceServer & { verify(settings: ResourceServerOptions): void }> {
  const counts: ResourceServerCounts = { accepted: 0, refused: 0 };
  let verification: Verification | undefined;
  let refusals = 0;
  const server = createServer((req, res) => {
    req.resume();
    const refused = refusals > 0;
    if (refused) refusals -= 1;
    (refused ? Promise.resolve(undefined) : authorize(req.headers.authorization, verification)).then(
      (claims) => {
        if (!claims) {
          counts.refused += 1;
          const challenge = req.headers.authorization ? 'Bearer error="invalid_token"' : 'Bearer';
          return sendJson(res, 401, { error: 'invalid_token' }, { 'www-authenticate': challenge });
        }
        counts.accepted += 1;
        const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
        if (req.method === 'GET' && path === '/me') {
          return sendJson(res, 200, { sub: claims.sub, client_id: claims.client_id, scope: claims.scope });
        }
        if (req.method === 'GET' && path === '/items') return sendJson(res, 200, { items: RESOURCE_ITEMS });
        sendJson(res, 404, { error: 'not_found' });
      },
      () => sendJson(res, 500, { error: 'server_error' }),
    );
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    get signatureChecks() {
      return verification?.signatureChecks ?? 0;
    },
    refuse(times = 1) {
      refusals += times;
    },
    verify(settings) {
      verification = {
        issuer: settings.issuer,
        audience: settings.audience,
        keys: createRemoteJWKSet(new URL(settings.jwksUrl)),
        clock: settings.clock ?? systemClock,
        verified: settings.verifyOnce ? new Map() : undefined,
        signatureChecks: 0,
      };
    },
    stop: () => close(server),
  };
}

/** The token's claims when jose accepts it as an access token of `verification`'s issuer for its audience. */
async function authorize(header: string | undefined, verification: Verification | undefined) {
  const token = /^Bearer ([\w.~+/-]+=*)$/.exec(header ?? '')?.[1];
  if (!token || !verification) return undefined;
  const { verified } = verification;
  if (!verified) return verifyToken(token, verification);
  // The verification itself is kept, not only its result: calls arriving together on a new token share one.
  let claims = verified.get(token);
  if (!claims) {
    if (verified.size >= VERIFIED_KEPT) verified.clear();
    claims = verifyToken(token, verification);
    verified.set(token, claims);
  }
  const known = await claims;
  return known && known.exp !== undefined && known.exp * 1000 > verification.clock.now() ? known : undefined;
}

async function verifyToken(token: string, verification: Verification): Promise<Claims | undefined> {
  verification.signatureChecks += 1;
  try {
    const { payload } = await jwtVerify<Claims>(token, verification.keys, {
      issuer: verification.issuer,
      audience: verification.audience,
      typ: 'at+jwt',
      currentDate: new Date(verification.clock.now()),
    });
    return payload;
  } catch {
    return undefined;
  }
}

/** Starts the resource server for tokens of `issuer` whose `aud` is `audience`. */
export async function startResourceServer(options: ResourceServerOptions): Promise<ResourceServer> {
  const server = await listenResourceServer();
  server.verify(options);
  return server;
}

/** The clock (default the system clock) is both servers'. */
export type OAuthRigOptions = Omit<AuthorizationServerOptions, 'resource'> & Pick<ResourceServerOptions, 'verifyOnce'>;

/** Both servers, the resource server's URL being the resource (`aud`) of every access token. */
export interface OAuthRig {
  auth: AuthorizationServer;
  api: ResourceServer;
  stop(): Promise<void>;
}

/** Starts the resource server, then the authorization server with the resource server's URL as its resource. */
export async function startOAuthRig(options: OAuthRigOptions = {}): Promise<OAuthRig> {
  const api = await listenResourceServer();
  const { verifyOnce, ...authOptions } = options;
  const auth = await startAuthorizationServer({ ...authOptions, resource: api.url });
  api.verify({ issuer: auth.issuer, jwksUrl: auth.jwksUrl, audience: auth.resource, clock: options.clock, verifyOnce });
  return {
    auth,
    api,
    stop: async () => {
      await Promise.all([auth.stop(), api.stop()]);
    },
  };
}

/**
 * A PKCE pair (RFC 7636, S256): `verifier` stays with the client, `challenge` goes in the
 * authorization request.
 */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * oidc-provider's storage for this server alone, in memory, kept until it stops (the models
 * check expiry themselves): stored artifacts by model and id, and indexes by grant and uid.
 */
/** The models a grant's revocation removes: its tokens and codes, never an interaction that names the grant. */
const GRANTED = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

function memoryAdapter(): (model: string) => Adapter {
  const stored = new Map<string, AdapterPayload>();
  const byGrant = new Map<string, Set<string>>();
  const index = new Map<string, string>();
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload) {
        stored.set(key(id), payload);
        if (GRANTED.has(model) && payload.grantId)
          byGrant.set(payload.grantId, (byGrant.get(payload.grantId) ?? new Set()).add(key(id)));
        if (payload.uid) index.set(`uid:${payload.uid}`, id);
        if (payload.userCode) index.set(`userCode:${payload.userCode}`, id);
      },
      find: async (id) => stored.get(key(id)),
      findByUid: async (uid) => stored.get(key(index.get(`uid:${uid}`) ?? '')),
      findByUserCode: async (userCode) => stored.get(key(index.get(`userCode:${userCode}`) ?? '')),
      async consume(id) {
        const payload = stored.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        stored.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const member of byGrant.get(grantId) ?? []) stored.delete(member);
        byGrant.delete(grantId);
      },
    };
  };
}

/** Keeps a Set-Cookie line's name and value, forgetting cookies it expires. */
function keepCookie(jar: Map<string, string>, line: string): void {
  const [pair = '', ...attributes] = line.split(';');
  const at = pair.indexOf('=');
  if (at <= 0) return;
  const name = pair.slice(0, at).trim();
  const expired = attributes.some((attribute) => {
    const [key = '', value = ''] = attribute.trim().split('=');
    if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
    if (key.toLowerCase() === 'expires') return Date.parse(value) <= Date.now();
    return false;
  });
  if (expired) jar.delete(name);
  else jar.set(name, pair.slice(at + 1).trim());
}

/** The request body, or undefined when it is larger than `BODY_LIMIT`. */
async function readBounded(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  // libuv lets a closed handle go in the close phase of a loop turn: two turns on, it is gone.
  for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}
