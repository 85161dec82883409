import { excerpt } from '@plugboard/sdk';
import type { OpenApiDocument, Operation, SecurityScheme } from './openapi-document.js';
import { commentLines } from './openapi-listing.js';

/**
 * The auth scheme a scaffold declares, from the security scheme the first security requirement
 * names (the document's, else the first of the chosen operations'): an API key in a header or
 * the query; OAuth2's authorization code flow, else its client credentials flow, with the
 * scopes the chosen operations ask for; else a bearer token, with a `TODO auth` comment saying
 * what the document declared where it is something a scaffold cannot declare.
 */

export interface ScaffoldAuth {
  /** The SDK's function the connector imports. */
  factory: string;
  /** The call declaring the scheme, e.g. `apiKeyHeader("X-Key")`. */
  call: string;
  /** The comment lines written before `auth:`, when the document declares what was not taken. */
  note: string[];
  /** A person signs in (OAuth2 authorization code): the README signs in at the stand-in. */
  signsIn: boolean;
  /** OAuth2 client credentials: the connection gets its tokens with a client id and secret. */
  clientCredentials: boolean;
}

type Requirement = Record<string, unknown>;
/** A scope as the SDK takes one: a name without spaces, bounded. */
const SCOPE = /^\S{1,200}$/;

const bearer = (note?: string): ScaffoldAuth => ({
  factory: 'bearerToken',
  call: 'bearerToken()',
  note: note === undefined ? [] : commentLines(`TODO auth: ${note}`, '  // '),
  signsIn: false,
  clientCredentials: false,
});

/** The requirements that apply to an operation: its own, else the document's. */
const requirementsOf = (document: OpenApiDocument, operation: Operation): Requirement[] =>
  (operation.security ?? document.security ?? []) as Requirement[];

/** The scopes the chosen operations' requirements (their own, else the document's) list for the scheme, each once, in order. */
function scopesOf(document: OpenApiDocument, operations: readonly Operation[], name: string): string[] {
  const requirements = operations.flatMap((operation) => requirementsOf(document, operation));
  const listed = requirements.flatMap((requirement) => {
    const scopes = requirement[name];
    return Array.isArray(scopes) ? scopes : [];
  });
  return [...new Set(listed.filter((scope): scope is string => typeof scope === 'string' && SCOPE.test(scope)))];
}

/** An endpoint of a flow, resolved against the document's first server: an https URL, else undefined. */
function endpoint(value: unknown, server: string | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value, server);
    return url.protocol === 'https:' && !url.username && !url.password ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The options of an OAuth2 scheme as a TypeScript object literal. */
function options(fields: Record<string, string>, scopes: readonly string[]): string {
  const entries = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  if (scopes.length > 0) entries.push(`scopes: [${scopes.map((scope) => JSON.stringify(scope)).join(', ')}]`);
  return `{ ${entries.join(', ')} }`;
}

/** OAuth2 from a scheme's flows: authorization code, else client credentials; else a bearer token saying why. */
function oauth2Of(
  document: OpenApiDocument,
  operations: readonly Operation[],
  name: string,
  scheme: SecurityScheme,
): ScaffoldAuth {
  const flows = scheme.flows ?? {};
  const server = document.servers?.[0]?.url;
  const scopes = scopesOf(document, operations, name);
  const code = flows.authorizationCode;
  const authorizeUrl = endpoint(code?.authorizationUrl, server);
  const codeTokenUrl = endpoint(code?.tokenUrl, server);
  if (authorizeUrl && codeTokenUrl) {
    const call = `oauth2AuthorizationCode(${options({ authorizeUrl, tokenUrl: codeTokenUrl }, scopes)})`;
    return { factory: 'oauth2AuthorizationCode', call, note: [], signsIn: true, clientCredentials: false };
  }
  const tokenUrl = endpoint(flows.clientCredentials?.tokenUrl, server);
  if (tokenUrl) {
    const call = `oauth2ClientCredentials(${options({ tokenUrl }, scopes)})`;
    return { factory: 'oauth2ClientCredentials', call, note: [], signsIn: false, clientCredentials: true };
  }
  const declared = Object.keys(flows)
    .slice(0, 4)
    .map((flow) => excerpt(flow, 40));
  return bearer(
    `the document's OAuth2 scheme ${excerpt(name, 60)} has ${declared.length > 0 ? `the ${declared.join(', ')} flow${declared.length > 1 ? 's' : ''}` : 'no flow'} and no authorization code or client credentials flow with https endpoints (resolved against the first server): declare oauth2AuthorizationCode or oauth2ClientCredentials of @plugboard/sdk with the provider's endpoints, or keep the bearer token if it also takes one.`,
  );
}

/** The scheme the first security requirement names: the document's, else the first the chosen `operations` have. */
export function authOf(document: OpenApiDocument, operations: readonly Operation[]): ScaffoldAuth {
  const requirement = (document.security?.[0] ??
    operations.map((operation) => operation.security?.[0]).find((first) => first !== undefined)) as
    | Requirement
    | undefined;
  const [name] = Object.keys(requirement ?? {});
  const scheme = name === undefined ? undefined : document.components?.securitySchemes?.[name];
  if (!name || !scheme) return bearer();
  if (
    scheme.type === 'apiKey' &&
    typeof scheme.name === 'string' &&
    (scheme.in === 'header' || scheme.in === 'query')
  ) {
    const factory = scheme.in === 'header' ? 'apiKeyHeader' : 'apiKeyQuery';
    const call = `${factory}(${JSON.stringify(scheme.name)})`;
    return { factory, call, note: [], signsIn: false, clientCredentials: false };
  }
  if (scheme.type === 'oauth2') return oauth2Of(document, operations, name, scheme);
  if (scheme.type === 'openIdConnect') {
    const at = typeof scheme.openIdConnectUrl === 'string' ? `, at ${excerpt(scheme.openIdConnectUrl, 200)}` : '';
    return bearer(
      `the document declares OpenID Connect (scheme ${excerpt(name, 60)}${at}): declare oauth2AuthorizationCode of @plugboard/sdk with the authorization and token endpoints its discovery document names, or keep the bearer token if the provider also takes one.`,
    );
  }
  return bearer();
}
