import type { ApiKeyQueryScheme } from '../../definition/auth.js';
import type { KeyChecked } from './credential-reader.js';
import { inQuery } from './hops.js';
import { keyCredential } from './key.js';
import type { SchemeType } from './scheme-type.js';

/**
 * The credential in a query parameter of every request to the provider.
 * @example auth: apiKeyQuery('api_key')
 */
export function apiKeyQuery(parameter: string, options: { id?: string } = {}): ApiKeyQueryScheme {
  return { type: 'api_key_query', id: options.id ?? `query:${parameter.toLowerCase()}`, parameter };
}

/** A query parameter name a scheme may use: printable, nothing a URL gives meaning to. */
const PARAMETER = /^[A-Za-z0-9._~-]+$/;

/** An API key in a query parameter; URL-encoded, so it may hold what a header cannot carry. */
export const apiKeyInQuery: SchemeType<ApiKeyQueryScheme, KeyChecked> = {
  type: 'api_key_query',
  ...keyCredential(false),
  problems: (scheme) =>
    typeof scheme.parameter === 'string' && PARAMETER.test(scheme.parameter)
      ? []
      : [`${JSON.stringify(scheme.parameter)} is not a valid query parameter name`],
  apply: (scheme, { key }) => inQuery(scheme.parameter, key),
  catalogue: (scheme) => ({ queryParameter: scheme.parameter }),
  describe: (published) => ['API key in the query parameter ', { code: published.queryParameter ?? '' }],
};
