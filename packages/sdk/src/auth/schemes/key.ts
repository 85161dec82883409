import type { CredentialReader, KeyChecked } from './credential-reader.js';

/**
 * What the host supplies for every scheme that sends one key (bearer, the API keys, a custom
 * signer's): a string, or `{ key, expiresAt? }`. Each of those scheme types spreads this in.
 */

const KEY_SCHEMA = {
  oneOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1 }, expiresAt: { type: 'number' } },
      additionalProperties: false,
    },
  ],
};

/**
 * The key credential's members of a scheme type. `inHeader`: the key goes as is (in a header, or
 * given to a signer), so it cannot carry a line break; a query parameter's is URL-encoded.
 */
export function keyCredential(inHeader: boolean) {
  return {
    shape: 'a string (or { key, expiresAt? })',
    credential(_scheme: unknown, value: unknown, reader: CredentialReader): KeyChecked {
      if (typeof value === 'string')
        return { kind: 'key', key: reader.text('a key', value, inHeader), expiresAt: undefined };
      const found = reader.record(value);
      return {
        kind: 'key',
        key: reader.text('key', found.key, inHeader),
        expiresAt: reader.expiry('expiresAt', found.expiresAt),
      };
    },
    supplies: () => structuredClone(KEY_SCHEMA),
    renewHint: renewKeyHint,
  };
}

/** A connection check's fix hint when the provider refused a key. */
export function renewKeyHint(provider: string): string {
  return `Replace the API key with a current one from ${provider}.`;
}
