import type { Clock } from '../../clock.js';
import type { AuthScheme, OAuth2Scheme } from '../../definition/auth.js';
import type { Redactor } from '../../secrets.js';
import type { TokenSource } from '../../tokens.js';
import type { AuthorizationRequest } from '../authorize-url.js';
import type { CheckedCredential, CredentialReader, OAuth2Checked } from './credential-reader.js';

/**
 * One type of auth scheme as the SDK knows it, one object per type in a file of its own in this
 * folder: what `defineConnector` refuses in a declaration of it, what the host supplies for it,
 * how that credential goes on a request, what the catalogue publishes of it, what a connection
 * check tells a person to do, and, for a scheme a person signs in to, the sign-in. A scheme
 * stays data on the connector (definition/auth.ts); `schemeType(scheme)` finds its object.
 */
export interface SchemeType<S extends AuthScheme = AuthScheme, C extends CheckedCredential = CheckedCredential> {
  /** The `type` its schemes carry. */
  readonly type: S['type'];
  /** What is wrong with a declaration of this type, beyond its id (which every type checks alike). */
  problems(scheme: S): string[];
  /** What the host supplies, in words, for a refusal that says what was expected. */
  readonly shape: string;
  /** The host resolver's answer (never empty), checked: `reader` refuses naming the part, never its value. */
  credential(scheme: S, value: unknown, reader: CredentialReader): C;
  /** The JSON Schema of what the host supplies (the shape, never a value). */
  supplies(scheme: S): Record<string, unknown>;
  /** What the credential stage does with the credential on each request of a run, resolved once per run. */
  apply(scheme: S, credential: C, run: ApplyRun): AppliedAuth;
  /** What the catalogue entry publishes of a scheme besides its id, type, default and supplies, in that order. */
  catalogue(scheme: S): SchemePublication;
  /** How the catalogue site names a scheme of this type, from what its entry published. */
  describe(published: PublicAuthentication): SchemeWords;
  /** A connection check's fix hint when the provider refused the credential (401). */
  renewHint(provider: string): string;
  /** A connection check's fix hint when the credential lacks a permission (403); else the general one. */
  permissionHint?(scheme: S, provider: string): string;
  /** The header a declaration names for the credential: no action's idempotency key can travel in it. */
  header?(scheme: S): string;
  /** True when the credential signs each request: the run's redactor learns every signature, so it is the run's own. */
  readonly signsEachRequest?: boolean;
  /** True for an OAuth2 scheme: its credential is a client and a token set, which the token lifecycle renews. */
  readonly oauth2?: boolean;
  /** For a scheme a person signs in to (`plugboard auth login`): the authorization request they open. */
  signIn?(scheme: S, options: { clientId: string; redirectUri: string }): Promise<AuthorizationRequest>;
}

/** Makes the token source of an OAuth2 connection: the lifecycle that refreshes and writes back. */
export type TokenLifecycle = (scheme: OAuth2Scheme, credential: OAuth2Checked) => TokenSource;

/** What a scheme's `apply` gets of the run. */
export interface ApplyRun {
  /** The run in errors: `connector action`. */
  subject: string;
  clock: Clock;
  /**
   * The transport's token lifecycle, or the run's own token source, whose lifecycle a host keeps
   * elsewhere (an isolated plugin's host): that one renews what the credential cannot.
   */
  lifecycle?: TokenLifecycle | TokenSource;
}

/** A request on its way to the provider, as a scheme reads and changes it (the credential stage's call). */
export interface SchemeHop {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | undefined;
  /** `GET /items/abc`, redacted, for errors. */
  readonly operation: string;
}

/** What a hop is applied with besides itself: where a signature is hidden, and whose errors it writes. */
export interface HopRun {
  redactor: Redactor;
  /** The connector's key. */
  connector: string;
}

/**
 * The hop with the credential when it goes to the provider's origin (`toProvider`), without
 * anything of it when it goes elsewhere; a copy, so no stage above ever sees the credential.
 */
export type OntoHop = <H extends SchemeHop>(hop: H, toProvider: boolean, run: HopRun) => H | Promise<H>;

/**
 * What the credential stage adds to each hop, resolved once per run by the scheme's `apply`:
 * `token`, an OAuth2 access token the tokens stage asks `source` for and puts on the call;
 * `request`, what `onto` puts on each hop (a header, a query parameter, a signature).
 */
export type AppliedAuth = { type: 'token'; source: TokenSource } | { type: 'request'; onto: OntoHop };

/**
 * One scheme as the catalogue publishes it: how the credential travels and what the host
 * supplies for it (`supplies`, a JSON Schema); never a credential.
 */
export interface PublicAuthentication {
  /** What a connection names in `settings.authScheme`. */
  id: string;
  type: AuthScheme['type'];
  /** The header the credential goes in (`Authorization` for bearer, basic and OAuth2). */
  header?: string;
  /** Written before the credential in the header. */
  prefix?: string;
  /** The query parameter the credential goes in. */
  queryParameter?: string;
  tokenUrl?: string;
  authorizeUrl?: string;
  scopes?: string[];
  audience?: string;
  extraAuthorizeParams?: Record<string, string>;
  /** How the OAuth2 client proves itself at the token endpoint: in a Basic header or in the form body. */
  clientAuthMethod?: 'header' | 'body';
  pkce?: 'S256';
  default: boolean;
  /** The JSON Schema of what the host's resolver supplies for this scheme. */
  supplies: Record<string, unknown>;
}

/** What a scheme's `catalogue()` publishes: every field but those the catalogue entry fills in for all. */
export type SchemePublication = Omit<PublicAuthentication, 'id' | 'type' | 'default' | 'supplies'>;

/** A scheme in words, for a person: text, and the values to show as code (a header name, a URL). */
export type SchemeWords = ReadonlyArray<string | { code: string }>;
