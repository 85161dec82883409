import { createHmac, timingSafeEqual } from 'node:crypto';
import { personKey } from './records.js';

/**
 * The approval page's CSRF token: an HMAC of the approval id and the signed-in person under the
 * server's key, so a form posted from elsewhere, or by someone else, carries no valid token.
 */
export function csrfToken(key: Uint8Array, id: string, person: string): string {
  return createHmac('sha256', key)
    .update(`${id}\n${personKey(person)}`)
    .digest('base64url');
}

export function validCsrf(key: Uint8Array, id: string, person: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(csrfToken(key, id, person));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
