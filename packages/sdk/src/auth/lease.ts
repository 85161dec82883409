import { type Clock, sleep } from '../clock.js';

/**
 * What lets one process at a time refresh a connection's tokens: a Redis lease when the
 * transport shares Redis (redis-lease.ts), a lock file in a state folder for processes of one
 * machine (file-lease.ts), or nothing beyond the process's own single flight. The holder reads
 * the credential store again once it holds the lease: another process may have refreshed.
 */
export interface RefreshLease {
  /**
   * Waits until this process holds `name` (bounded: a holder that died is outlived after the
   * lease's time) and gives what releases it; only the holder's release frees it. Each time the
   * holder changes (a refresh ends with its release) a waiter asks `settled`: when another
   * process's refresh is already in the store, there is nothing to take the lease for (undefined).
   */
  take(name: string, settled?: () => Promise<boolean>): Promise<(() => Promise<void>) | undefined>;
}

/**
 * How often a process waiting on another's lease looks at it again (on the transport's clock)
 * while the refresh it waits for is young. Looking is cheap (a Redis SET NX and GET, a small
 * file read); the store, maybe the host's remote vault, is read only when the holder changed.
 * Every waiting call of a fleet waits this much at most beyond a refresh that ends in time.
 */
export const LEASE_POLL_MS = 1;
/** How long a waiter looks every `LEASE_POLL_MS`: a refresh takes a token round trip and a store write. */
export const LEASE_FAST_POLLING_MS = 200;
/** How often it looks after that, at a holder slow to answer (or dead, until its lease runs out). */
export const LEASE_SLOW_POLL_MS = 10;

/** Within a process the lifecycle's own single flight is enough. */
export const NO_LEASE: RefreshLease = { take: async () => async () => undefined };

/** One try at a lease: taken, or who holds it (an opaque mark; undefined when nobody seems to). */
export type LeaseAttempt = { taken: true } | { taken: false; holder: string | undefined };

/**
 * The waiting both leases share: try, and while another holds it look again every poll,
 * asking `settled` whenever the holder changed since the last look. Bounded by the lease's
 * time twice over; `unavailable` makes the error for a holder that never let go.
 */
export async function waitForLease(
  clock: Clock,
  leaseMs: number,
  attempt: () => Promise<LeaseAttempt>,
  settled: (() => Promise<boolean>) | undefined,
  unavailable: (heldMs: number) => Error,
): Promise<boolean> {
  const started = clock.now();
  const until = started + 2 * leaseMs;
  let seen: string | undefined;
  for (let first = true; ; first = false) {
    const tried = await attempt();
    if (tried.taken) return true;
    if (!first && tried.holder !== seen && (await settled?.())) return false;
    seen = tried.holder;
    if (clock.now() >= until) throw unavailable(2 * leaseMs);
    await sleep(clock, clock.now() - started < LEASE_FAST_POLLING_MS ? LEASE_POLL_MS : LEASE_SLOW_POLL_MS);
  }
}
