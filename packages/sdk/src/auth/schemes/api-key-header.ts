import type { ApiKeyHeaderScheme } from '../../definition/auth.js';
import { isHeaderName } from '../../http/headers.js';
import type { KeyChecked } from './credential-reader.js';
import { inHeader } from './hops.js';
import { keyCredential } from './key.js';
import type { SchemeType } from './scheme-type.js';

/**
 * The credential in a named header such as `X-Api-Key`, after an optional prefix.
 * @example auth: [bearerToken(), apiKeyHeader('X-Api-Key'), apiKeyHeader('Authorization', { prefix: 'Token ' })]
 */
export function apiKeyHeader(header: string, options: { prefix?: string; id?: string } = {}): ApiKeyHeaderScheme {
  return {
    type: 'api_key_header',
    id: options.id ?? header.toLowerCase(),
    header,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  };
}

/** Headers the transport writes itself: a scheme cannot own them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'content-type']);

/** An API key in a header the connector names, after an optional prefix. */
export const apiKeyInHeader: SchemeType<ApiKeyHeaderScheme, KeyChecked> = {
  type: 'api_key_header',
  ...keyCredential(true),
  problems(scheme) {
    const problems: string[] = [];
    if (!isHeaderName(scheme.header)) problems.push(`${JSON.stringify(scheme.header)} is not a valid header name`);
    else if (RESERVED_HEADERS.has(scheme.header.toLowerCase()))
      problems.push(`the header ${scheme.header} is written by the transport, not by a scheme`);
    if (scheme.prefix !== undefined && (typeof scheme.prefix !== 'string' || !/^[\x20-\x7e]*$/.test(scheme.prefix)))
      problems.push('the prefix must be printable ASCII text');
    return problems;
  },
  apply: (scheme, { key }) => inHeader(scheme.header.toLowerCase(), `${scheme.prefix ?? ''}${key}`),
  catalogue: (scheme) => ({ header: scheme.header, ...(scheme.prefix ? { prefix: scheme.prefix } : {}) }),
  describe: (published) => [
    'API key in ',
    { code: published.header ?? '' },
    ...(published.prefix ? [' after ', { code: published.prefix }] : []),
  ],
  header: (scheme) => scheme.header,
};
