import type { IncomingHttpHeaders } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

export type AuthOutcome = 'ok' | 'missing' | 'invalid';

/** Accepts the key as `Authorization: Bearer <key>` or as `X-Api-Key: <key>`, the two forms the connector may send. */
export function authenticate(headers: IncomingHttpHeaders, apiKey: string): AuthOutcome {
  const authorization = headers.authorization;
  const headerKey = headers['x-api-key'];
  let presented: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return 'invalid';
    presented = match[1];
  } else if (typeof headerKey === 'string') {
    presented = headerKey.trim();
  } else {
    return 'missing';
  }
  return presented !== undefined && sameKey(presented, apiKey) ? 'ok' : 'invalid';
}

function sameKey(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Headers that carry credentials, left out of the request log. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'proxy-authorization',
  'cookie',
]);
