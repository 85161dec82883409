import type { CredentialStore } from '../tokens.js';

/**
 * What a host gives a transport for the OAuth2 token lifecycle (`createHostTransport({ credentials })`).
 * With Redis on the transport, processes take turns refreshing through it; else through a lock
 * file in `lockFolder`; else only within the process.
 */
export interface CredentialOptions {
  /**
   * Where each connection's current token set is kept between runs and shared by processes
   * (compare-and-set). Default: in this transport's memory, so a rotated refresh token lives
   * only as long as the process.
   */
  store?: CredentialStore;
  /**
   * How long before an access token's expiry it is refreshed. Default: the larger of 60 s and a
   * tenth of the token's lifetime; never more than half the lifetime, so a new token is used.
   */
  refreshMarginMs?: number;
  /** A folder for the refresh lock files of processes on this machine, used when the transport has no Redis. */
  lockFolder?: string;
  /** The bound of one token request (default 10 s); a process waiting for another's refresh waits at most twice this plus 5 s. */
  tokenTimeoutMs?: number;
}

/** The options checked when the transport is made: a TypeError names a wrong field. */
export function checkCredentialOptions(options: CredentialOptions | undefined): void {
  if (options === undefined) return;
  const { store, refreshMarginMs, lockFolder, tokenTimeoutMs } = options;
  const refuse = (problem: string): never => {
    throw new TypeError(`createHostTransport({ credentials }): ${problem}`);
  };
  if (store !== undefined && (typeof store.read !== 'function' || typeof store.compareAndSet !== 'function'))
    refuse('store must have read() and compareAndSet()');
  if (refreshMarginMs !== undefined && !(Number.isFinite(refreshMarginMs) && refreshMarginMs >= 0))
    refuse('refreshMarginMs must be a number of ms, 0 or more');
  if (lockFolder !== undefined && (typeof lockFolder !== 'string' || lockFolder === ''))
    refuse('lockFolder must be a folder path');
  if (tokenTimeoutMs !== undefined && !(Number.isInteger(tokenTimeoutMs) && tokenTimeoutMs > 0))
    refuse('tokenTimeoutMs must be a positive whole number of ms');
}
