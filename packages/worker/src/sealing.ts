import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InvalidInputError } from '@plugboard/sdk';
import type { StoredTokenSet } from '@plugboard/sdk/host';
import { CredentialUnreadableError } from './errors.js';

/**
 * Token sets sealed with AES-256-GCM under the host's key: a fresh 12-byte IV for every write,
 * the connection id as associated data (a sealed set copied to another connection does not open).
 * Layout: one format byte, the IV, the 16-byte tag, the ciphertext.
 */

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The host's key as given, checked: 32 bytes (AES-256). Its bytes are never quoted. */
export function sealingKey(key: unknown, subject: string): Buffer {
  if (!(key instanceof Uint8Array) || key.byteLength !== KEY_BYTES) {
    const given = key instanceof Uint8Array ? `${key.byteLength} bytes` : typeof key;
    throw new InvalidInputError(subject, [
      {
        path: 'key',
        message: `must be ${KEY_BYTES} bytes (AES-256), e.g. Buffer.from(process.env.PLUGBOARD_CREDENTIAL_KEY, 'base64'); got ${given}`,
      },
    ]);
  }
  return Buffer.from(key);
}

export function seal(key: Buffer, connectionId: string, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(connectionId, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body]);
}

/** The token set sealed in `sealed`; `CredentialUnreadableError` for a wrong key or altered bytes, never garbage. */
export function unseal(key: Buffer, connectionId: string, sealed: Buffer): StoredTokenSet {
  try {
    if (sealed[0] !== FORMAT || sealed.length < 1 + IV_BYTES + TAG_BYTES) throw new Error('not a sealed token set');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(connectionId, 'utf8'));
    decipher.setAuthTag(tag);
    const body = Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(body.toString('utf8')) as StoredTokenSet;
  } catch {
    // No cause: a parser's message would quote the text it read.
    throw new CredentialUnreadableError(connectionId);
  }
}
