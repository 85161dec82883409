import type { Clock } from '../clock.js';

/**
 * What lets one process at a time refresh a connection's tokens: a Redis lease when the
 * transport shares Redis (redis-lease.ts), a lock file in a state folder for processes of one
 * machine (file-lease.ts), or nothing beyond the process's own single flight. The holder reads
 * the credential store again once it holds the lease: another process may have refreshed.
 */
export interface RefreshLease {
  /**
   * Waits until this process holds `name` (bounded: a holder that died is outlived after the
   * lease's time) and gives what releases it; only the holder's release frees it. While it
   * waits it asks `settled` between tries: when another process's refresh is already in the
   * store, there is nothing to take the lease for (undefined).
   */
  take(name: string, settled?: () => Promise<boolean>): Promise<(() => Promise<void>) | undefined>;
}

/** How often a process waiting on another's lease asks again (on the transport's clock). */
export const LEASE_POLL_MS = 10;

/** Within a process the lifecycle's own single flight is enough. */
export const NO_LEASE: RefreshLease = { take: async () => async () => undefined };

/** How long a waiter keeps asking before it gives up: the lease's time twice over. */
export function patience(clock: Clock, leaseMs: number): () => boolean {
  const until = clock.now() + 2 * leaseMs;
  return () => clock.now() < until;
}
