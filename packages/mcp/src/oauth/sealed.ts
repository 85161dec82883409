import { hkdfSync } from 'node:crypto';
import type { Clock } from '@plugboard/sdk/host';
import { EncryptJWT, type JWTPayload, jwtDecrypt, jwtVerify, SignJWT } from 'jose';

/**
 * Cookie contents only this server can make: the session is a JWT signed with HMAC-SHA256 (its
 * subject is no secret), the sign-in transaction (state, PKCE verifier) a JWT encrypted with
 * AES-256-GCM. Both keys come from the one cookie secret by HKDF, each for its own use, and
 * both carry an expiry read against the clock.
 */
export interface Sealer {
  sign(claims: JWTPayload, seconds: number): Promise<string>;
  verify(token: string): Promise<JWTPayload | undefined>;
  seal(claims: JWTPayload, seconds: number): Promise<string>;
  open(token: string): Promise<JWTPayload | undefined>;
}

export function sealer(secret: string, clock: Clock): Sealer {
  const key = (use: string) => new Uint8Array(hkdfSync('sha256', secret, '', `plugboard mcp ${use}`, 32));
  const signing = key('session');
  const encryption = key('sign-in');
  const now = () => Math.floor(clock.now() / 1000);
  const current = () => ({ currentDate: new Date(clock.now()) });

  return {
    sign: (claims, seconds) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(now())
        .setExpirationTime(now() + seconds)
        .sign(signing),
    verify: (token) =>
      jwtVerify(token, signing, { algorithms: ['HS256'], requiredClaims: ['exp'], ...current() }).then(
        ({ payload }) => payload,
        () => undefined,
      ),
    seal: (claims, seconds) =>
      new EncryptJWT(claims)
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
        .setIssuedAt(now())
        .setExpirationTime(now() + seconds)
        .encrypt(encryption),
    open: (token) =>
      jwtDecrypt(token, encryption, {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        requiredClaims: ['exp'],
        ...current(),
      }).then(
        ({ payload }) => payload,
        () => undefined,
      ),
  };
}
