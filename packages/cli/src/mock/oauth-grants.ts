import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '@plugboard/sdk/host';
import { Refusal } from './refusal.js';

/**
 * What the stand-in authorization server grants and remembers, as a strict server would: codes
 * bound to their client, redirect URI and PKCE S256 challenge, used once; access tokens with a
 * lifetime on the mock's clock; refresh tokens that rotate, and whose reuse revokes the grant
 * (RFC 9700 4.14.2). Everything is in memory and bounded.
 */

/** How long a code may wait for its exchange. */
const CODE_LIFETIME_MS = 60_000;
/** The most codes, access tokens and refresh tokens kept each: the oldest go first. */
const MAX_KEPT = 10_000;

export interface GrantedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string | undefined;
  expiresAt: number;
}

interface Refresh {
  clientId: string;
  scope: string | undefined;
  grant: string;
  used: boolean;
}

/** A map that forgets its oldest entries past `MAX_KEPT`. */
function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_KEPT) map.delete(map.keys().next().value!);
}

const token = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;

/** Compares without telling by the time taken how much of a secret was right. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export class Grants {
  private readonly codes = new Map<string, Code>();
  private readonly access = new Map<string, { expiresAt: number; grant: string }>();
  private readonly refreshes = new Map<string, Refresh>();
  private readonly revoked = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly lifetimeSeconds: number,
  ) {}

  /** A code for an authorization request that passed its checks. */
  code(clientId: string, redirectUri: string, challenge: string, scope: string | undefined): string {
    const code = token('code');
    keep(this.codes, code, { clientId, redirectUri, challenge, scope, expiresAt: this.clock.now() + CODE_LIFETIME_MS });
    return code;
  }

  /** The authorization code grant: the code once, by its client, with its redirect URI and verifier. */
  exchangeCode(clientId: string, code: string, redirectUri: string, verifier: string): GrantedTokens {
    const kept = this.codes.get(code);
    this.codes.delete(code);
    if (!kept || kept.expiresAt <= this.clock.now()) throw invalidGrant('the code is unknown, used or expired');
    if (kept.clientId !== clientId) throw invalidGrant('the code was issued to another client');
    if (kept.redirectUri !== redirectUri) throw invalidGrant('redirect_uri is not the one the code was asked with');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || challenge !== kept.challenge)
      throw invalidGrant('code_verifier does not match the code_challenge');
    return this.issue(clientId, kept.scope, token('grant'), true);
  }

  /** The refresh grant: a new access token and a new refresh token; the old one is spent, and its reuse revokes the grant. */
  refresh(clientId: string, refreshToken: string): GrantedTokens {
    const kept = this.refreshes.get(refreshToken);
    if (!kept || this.revoked.has(kept.grant)) throw invalidGrant('the refresh token is unknown or revoked');
    if (kept.clientId !== clientId) throw invalidGrant('the refresh token was issued to another client');
    if (kept.used) {
      this.revoked.add(kept.grant);
      throw invalidGrant('the refresh token was used already; the grant is revoked');
    }
    kept.used = true;
    return this.issue(clientId, kept.scope, kept.grant, true);
  }

  /** The client credentials grant: an access token for the client itself, no refresh token. */
  clientCredentials(clientId: string, scope: string | undefined): GrantedTokens {
    return this.issue(clientId, scope, token('grant'), false);
  }

  /** Whether an access token is one this server issued and is still good. */
  accessToken(accessToken: string): 'good' | 'expired' | 'unknown' {
    const kept = this.access.get(accessToken);
    if (!kept || this.revoked.has(kept.grant)) return 'unknown';
    return kept.expiresAt <= this.clock.now() ? 'expired' : 'good';
  }

  private issue(clientId: string, scope: string | undefined, grant: string, refreshable: boolean): GrantedTokens {
    const access = token('at');
    keep(this.access, access, { expiresAt: this.clock.now() + this.lifetimeSeconds * 1000, grant });
    const granted: GrantedTokens = { access_token: access, token_type: 'Bearer', expires_in: this.lifetimeSeconds };
    if (refreshable) {
      const refresh = token('rt');
      keep(this.refreshes, refresh, { clientId, scope, grant, used: false });
      granted.refresh_token = refresh;
    }
    if (scope !== undefined) granted.scope = scope;
    return granted;
  }
}

function invalidGrant(message: string): Refusal {
  return new Refusal(400, 'invalid_grant', message);
}
