import type { BearerScheme } from '../../definition/auth.js';
import type { KeyChecked } from './credential-reader.js';
import { inHeader } from './hops.js';
import { keyCredential } from './key.js';
import type { SchemeType } from './scheme-type.js';

/**
 * `Authorization: Bearer <credential>`.
 * @example auth: bearerToken()
 */
export function bearerToken(): BearerScheme {
  return { type: 'bearer', id: 'bearer' };
}

/** The bearer token: a key in `Authorization`. */
export const bearer: SchemeType<BearerScheme, KeyChecked> = {
  type: 'bearer',
  ...keyCredential(true),
  problems: () => [],
  apply: (_scheme, { key }) => inHeader('authorization', `Bearer ${key}`),
  catalogue: () => ({ header: 'Authorization' }),
  describe: (published) => ['Bearer token in ', { code: published.header ?? 'Authorization' }],
};
