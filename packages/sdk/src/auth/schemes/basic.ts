import type { BasicScheme } from '../../definition/auth.js';
import type { BasicChecked } from './credential-reader.js';
import { inHeader } from './hops.js';
import type { SchemeType } from './scheme-type.js';

/**
 * HTTP Basic: the host supplies `{ username, password }`.
 * @example auth: basicAuth()
 */
export function basicAuth(options: { id?: string } = {}): BasicScheme {
  return { type: 'basic', id: options.id ?? 'basic' };
}

/** `user:password` in base64, as HTTP Basic sends it. */
export function basicToken(credential: { username: string; password: string }): string {
  return Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
}

/** HTTP Basic: a username and a password in `Authorization`. */
export const basic: SchemeType<BasicScheme, BasicChecked> = {
  type: 'basic',
  problems: () => [],
  shape: '{ username, password }',
  credential(_scheme, value, reader) {
    const found = reader.record(value);
    const username = reader.text('username', found.username, true);
    if (username.includes(':')) reader.refuse('has a username holding a colon, which HTTP Basic cannot carry');
    return { kind: 'basic', username, password: reader.text('password', found.password, true) };
  },
  supplies: () => ({
    type: 'object',
    required: ['username', 'password'],
    properties: { username: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
    additionalProperties: false,
  }),
  apply: (_scheme, credential) => inHeader('authorization', `Basic ${basicToken(credential)}`),
  catalogue: () => ({ header: 'Authorization' }),
  describe: () => ['Username and password (HTTP Basic)'],
  renewHint: (provider) => `Enter the current username and password for ${provider}.`,
};
