import type { Clock } from './clock.js';
import { CredentialsExpiredError } from './errors.js';

/**
 * OAuth2 token sets, where the credential stage gets a current access token from (a
 * `TokenSource`), and where a host keeps token sets between runs (a `CredentialStore`).
 */

/** What a token endpoint granted. Times are milliseconds since the epoch (a `Clock`'s `now()`). */
export interface TokenSet {
  /** Sent as `Authorization: Bearer`. */
  accessToken: string;
  /** Exchanged for a new token set when the access token expires. */
  refreshToken?: string;
  /** When the access token stops working; unknown when absent. */
  expiresAt?: number;
  /** The scopes granted, space-separated as the provider wrote them. */
  scope?: string;
  /** `Bearer` unless the provider says otherwise. */
  tokenType?: string;
}

/**
 * Where the credential stage asks for the access token of each request. The token lifecycle
 * (refresh ahead of expiry, refresh once after a 401, single flight, writing a rotated refresh
 * token back to the host's `CredentialStore` first) belongs behind this interface.
 */
export interface TokenSource {
  /** A token set whose access token may be sent now; `CredentialsExpiredError` when there is none. */
  current(): Promise<TokenSet>;
  /** A newer token set after the provider refused `used` with a 401; `CredentialsExpiredError` when none can be had. */
  refreshAfter401(used: TokenSet): Promise<TokenSet>;
}

/** The failure of a run whose access token expired and cannot be renewed. */
export function tokenExpired(subject: string): CredentialsExpiredError {
  return new CredentialsExpiredError(
    `${subject}: the access token has expired; sign in again to renew it; nothing was sent`,
  );
}

/**
 * The token source of a credential that holds its access token and nothing more can be done:
 * the token is sent until its expiry, then the run fails with `credentials_expired`.
 */
export function heldTokenSource(subject: string, tokens: TokenSet, clock: Clock): TokenSource {
  const current = Promise.resolve(tokens);
  const expired = () => Promise.reject(tokenExpired(subject));
  return {
    current: () => (tokens.expiresAt !== undefined && tokens.expiresAt <= clock.now() ? expired() : current),
    refreshAfter401: expired,
  };
}

/** A token set as a credential store keeps it: what the token lifecycle learnt of it goes with it. */
export interface StoredTokenSet extends TokenSet {
  /**
   * The SHA-256 digest (hex) of `refreshToken`, once the token endpoint refused it
   * (`invalid_grant`): no process sends that refresh token again, and runs on the set fail with
   * `credentials_expired`. A set written later (a sign-in, another refresh) has no such mark.
   */
  refreshRefused?: string;
}

/** A connection's token set as a store holds it: `version` grows by one with every write. */
export interface StoredTokens {
  version: number;
  tokens: StoredTokenSet;
}

/**
 * Where a host keeps each connection's current OAuth2 token set between runs, shared by every
 * process that runs the connection. Writes are compare-and-set, so two processes that refreshed
 * at once do not both win: the loser reads again.
 */
export interface CredentialStore {
  /** The connection's token set; undefined when none was stored. */
  read(connectionId: string): Promise<StoredTokens | undefined>;
  /**
   * Stores `next` whole (every field, `refreshRefused` too) only when the connection's entry is
   * still `expected` (the one read, by its version; undefined for none). Returns whether it did.
   */
  compareAndSet(connectionId: string, expected: StoredTokens | undefined, next: StoredTokenSet): Promise<boolean>;
}

/** A credential store in memory, for one process and tests. */
export function memoryCredentialStore(): CredentialStore {
  const entries = new Map<string, string>();
  return {
    async read(connectionId) {
      const text = entries.get(connectionId);
      return text === undefined ? undefined : (JSON.parse(text) as StoredTokens);
    },
    async compareAndSet(connectionId, expected, next) {
      const text = entries.get(connectionId);
      const version = text === undefined ? undefined : (JSON.parse(text) as StoredTokens).version;
      if (version !== expected?.version) return false;
      entries.set(connectionId, JSON.stringify({ version: (version ?? 0) + 1, tokens: next }));
      return true;
    },
  };
}
