import type {
  AuthScheme,
  OAuth2AuthorizationCodeScheme,
  OAuth2ClientCredentialsScheme,
} from '../../definition/auth.js';
import { ConnectionConfigError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { apiKeyInHeader } from './api-key-header.js';
import { apiKeyInQuery } from './api-key-query.js';
import { basic } from './basic.js';
import { bearer } from './bearer.js';
import { custom } from './custom.js';
import { authorizationCode } from './oauth2-authorization-code.js';
import { clientCredentials } from './oauth2-client-credentials.js';
import type { PublicAuthentication, SchemeType, SchemeWords } from './scheme-type.js';

/**
 * Every type of auth scheme the SDK knows, by the `type` its schemes carry: the one place the
 * SDK, the catalogue, the CLI and the runtime ask about a scheme. Adding a type: its data in
 * definition/auth.ts (an interface, and a member of the `AuthScheme` union), a file here with
 * its constructor and its `SchemeType` object, its line below (the compiler asks for it), and
 * the constructor's export in src/index.ts. A scheme of a type not listed is refused by
 * `defineConnector`.
 */
const SCHEME_TYPES: { readonly [T in AuthScheme['type']]: SchemeType<Extract<AuthScheme, { type: T }>> } = {
  bearer,
  api_key_header: apiKeyInHeader,
  api_key_query: apiKeyInQuery,
  basic,
  oauth2_client_credentials: clientCredentials,
  oauth2_authorization_code: authorizationCode,
  custom,
};

/** The object of a scheme type, by its name; none for a name the SDK does not know. */
function findSchemeType(type: unknown): SchemeType | undefined {
  return typeof type === 'string' && Object.hasOwn(SCHEME_TYPES, type)
    ? (SCHEME_TYPES as unknown as Readonly<Record<string, SchemeType>>)[type]
    : undefined;
}

/** The object of the scheme's type; a scheme of a type the SDK does not know is refused. */
export function schemeType(scheme: Pick<AuthScheme, 'id' | 'type'>): SchemeType {
  const found = findSchemeType(scheme?.type);
  if (found) return found;
  throw new ConnectionConfigError(
    `auth scheme '${excerpt(String(scheme?.id))}' is of the type ${excerpt(String(JSON.stringify(scheme?.type)))}, which is none of ${Object.keys(SCHEME_TYPES).join(', ')}; nothing was sent`,
  );
}

/** An auth scheme's id: what a connection names in `settings.authScheme`. */
const SCHEME_ID = /^[a-z0-9][a-z0-9_:.-]*$/;

/** What is wrong with one scheme, without the connector's and scheme's names (the caller adds them). */
export function schemeProblems(scheme: AuthScheme): string[] {
  const problems: string[] = [];
  if (typeof scheme.id !== 'string' || !SCHEME_ID.test(scheme.id))
    problems.push('the id must be lower case letters, digits, _, -, . or :');
  const type = findSchemeType(scheme.type);
  if (type) problems.push(...type.problems(scheme));
  else problems.push(`unknown scheme type ${JSON.stringify((scheme as { type: unknown }).type)}`);
  return problems;
}

/**
 * True when a person signs in to the scheme in a browser (what `plugboard auth login` does): its
 * type has a sign-in, and `authorizationRequest` makes the request they open.
 */
export function signsIn(scheme: AuthScheme): scheme is OAuth2AuthorizationCodeScheme {
  return findSchemeType(scheme?.type)?.signIn !== undefined;
}

/** True for an OAuth2 scheme: its credential is a client and a token set, which the host's token lifecycle renews. */
export function isOAuth2Scheme(
  scheme: AuthScheme | undefined,
): scheme is OAuth2ClientCredentialsScheme | OAuth2AuthorizationCodeScheme {
  return findSchemeType(scheme?.type)?.oauth2 === true;
}

/**
 * A published scheme (an entry's `authentication.schemes`) in words for a person: text, and the
 * values to show as code.
 * @example describeScheme({ id: 'bearer', type: 'bearer', header: 'Authorization', default: true, supplies }) // ['Bearer token in ', { code: 'Authorization' }]
 */
export function describeScheme(published: PublicAuthentication): SchemeWords {
  return schemeType(published).describe(published);
}

/** The header a scheme's declaration names for its credential (an API key's), when it names one. */
export function credentialHeader(scheme: AuthScheme | undefined): string | undefined {
  const type = findSchemeType(scheme?.type);
  return scheme && type?.header?.(scheme);
}
