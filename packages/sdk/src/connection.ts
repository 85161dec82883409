import { schemeAtAuthBase } from './auth/auth-base.js';
import type { AuthScheme } from './definition/auth.js';
import type { Environment } from './definition/environment.js';
import type { Connector } from './definition/connector.js';
import type { ConnectionCredential } from './credentials.js';
import { ConnectionConfigError, InvalidInputError } from './errors.js';
import { excerpt } from './excerpt.js';
import { formatJsonPath, jsonProblem, MAX_JSON_DEPTH } from './json.js';
import { findSecretKeys } from './secrets.js';
import { MAX_ISSUES, zodIssues } from './validation.js';

/**
 * A connection as a run receives it: an id, an optional base URL, and
 * non-secret settings. The credential comes separately, from the host's vault.
 */
export interface ConnectionInput {
  /** The platform's connection id; budgets and approval digests are per connection. */
  id?: string;
  /** Overrides the connector's default base URL (tests, simulators, proxies, regions). */
  baseUrl?: string;
  /**
   * Points the OAuth2 scheme's endpoints at a stand-in authorization server (sandbox only):
   * sign-in at `<authBaseUrl>/authorize`, token requests at `<authBaseUrl>/token`. Not a secret.
   */
  authBaseUrl?: string;
  /** Non-secret settings; `authScheme` picks one of the connector's auth schemes. */
  settings?: Record<string, unknown>;
}

/** A connection as a prepared run uses it (`PreparedRun.connection`): every part given or defaulted, the settings checked. */
export interface ResolvedConnection {
  /** The connection id (`default` when none was given). */
  id: string;
  /** The base URL requests go to: the given one, else the connector's. */
  baseUrl: string;
  /** The settings as the connector's schema parsed them, `authScheme` among them when given; frozen. */
  settings: Readonly<Record<string, unknown>>;
  /** The auth scheme the connection uses: the one `authScheme` picks, else the connector's first; its OAuth2 endpoints under `authBaseUrl` when given. */
  scheme: AuthScheme;
}

/**
 * Resolves the credential the connection uses, e.g. from the host's vault, in the shape of the
 * connection's scheme (a string for bearer and API keys); never stored in settings.
 */
export type SecretResolver = () => ConnectionCredential | undefined | Promise<ConnectionCredential | undefined>;

/**
 * Platform rule 10: settings whose keys look like a secret (`password`, `apiKey`,
 * `api_key`, `accessToken`, `clientSecret`, `authorization`, `credential`, ...)
 * are refused at any depth; secrets reach a connector only through a resolver.
 */
export function checkConnectionSettings(settings: unknown): void {
  // Plain JSON of a bounded depth first: the search below walks it recursively.
  const problem = jsonProblem(settings, MAX_JSON_DEPTH);
  if (problem) {
    throw new ConnectionConfigError(
      `connection settings must be plain JSON data: ${excerpt(formatJsonPath(problem.path, 'settings'))}: ${problem.message}`,
    );
  }
  const keys = findSecretKeys(settings);
  if (keys.length > 0) {
    throw new ConnectionConfigError(
      `connection settings must not hold secrets; store them in the vault and pass a secret reference instead. Refused: ${keys
        .slice(0, MAX_ISSUES)
        .map((key) => excerpt(`settings.${key}`))
        .join(', ')}${keys.length > MAX_ISSUES ? ` and ${keys.length - MAX_ISSUES} more` : ''}`,
    );
  }
}

/** Base URLs already found well-formed: a process runs many actions on a few connections. */
const checkedUrls = new Set<string>();

function httpUrl(value: string, field: string): string {
  if (checkedUrls.has(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConnectionConfigError(`${field} must be an absolute http(s) URL, not ${excerpt(JSON.stringify(value))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConnectionConfigError(`${field} must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  if (url.username || url.password) throw new ConnectionConfigError(`${field} must not carry credentials`);
  if (checkedUrls.size >= 1024) checkedUrls.clear();
  checkedUrls.add(value);
  return value;
}

const NO_SETTINGS: Readonly<Record<string, unknown>> = Object.freeze({});

export function resolveConnection(
  connector: Connector,
  input: ConnectionInput = {},
  environment: Environment = 'sandbox',
): ResolvedConnection {
  // Most connections of a run have no settings: they share one frozen empty object, copied by nothing.
  let authScheme: unknown;
  let settings: Record<string, unknown> = NO_SETTINGS;
  if (input.settings !== undefined) {
    ({ authScheme, ...settings } = input.settings);
    checkConnectionSettings(settings);
  }
  let parsedSettings: Record<string, unknown> = settings;
  if (connector.settings) {
    const result = connector.settings.safeParse(settings);
    if (!result.success)
      throw new InvalidInputError(
        `connector '${connector.key}': connection settings`,
        zodIssues(result.error, 'settings'),
      );
    parsedSettings = result.data as Record<string, unknown>;
  }
  const scheme =
    authScheme === undefined
      ? connector.auth[0]
      : connector.auth.find((candidate) => candidate.id === String(authScheme).toLowerCase());
  if (!scheme) {
    throw new ConnectionConfigError(
      `settings.authScheme: connector '${connector.key}' accepts ${connector.auth.map((candidate) => `'${candidate.id}'`).join(' or ')}, not ${excerpt(JSON.stringify(authScheme) ?? String(authScheme))}`,
    );
  }
  const baseUrl = input.baseUrl ?? connector.baseUrl;
  if (!baseUrl) {
    throw new ConnectionConfigError(
      `connection baseUrl: connector '${connector.key}' has no public default base URL; the connection must set one`,
    );
  }
  return {
    id: input.id ?? 'default',
    baseUrl: httpUrl(baseUrl, 'connection baseUrl'),
    settings:
      input.settings === undefined && !connector.settings
        ? NO_SETTINGS
        : Object.freeze({ ...parsedSettings, ...(authScheme === undefined ? {} : { authScheme }) }),
    scheme: schemeAtAuthBase(scheme, input.authBaseUrl, environment),
  };
}
