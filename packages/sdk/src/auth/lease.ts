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
   * lease's time) and gives what releases it; only the holder's release frees it. Each time the
   * holder changes (a refresh ends with its release) a waiter asks `settled`: when another
   * process's refresh is already in the store, there is nothing to take the lease for (undefined).
   */
  take(name: string, settled?: () => Promise<boolean>): Promise<(() => Promise<void>) | undefined>;
}

/**
 * How often a waiter looks at the lease when nothing told it that the holder let go (on the
 * transport's clock). The holder's release wakes its waiters at once (a Redis message, a change
 * in the lock folder); this look is for a notice that never came (a subscriber reconnecting, a
 * file system that reports no changes) and for a holder that died, whose lease runs out.
 */
export const LEASE_FALLBACK_POLL_MS = 100;

/** Within a process the lifecycle's own single flight is enough. */
export const NO_LEASE: RefreshLease = { take: async () => async () => undefined };

/** One try at a lease: taken, or who holds it (an opaque mark; undefined when nobody seems to). */
export type LeaseAttempt = { taken: true } | { taken: false; holder: string | undefined };

/**
 * Starts listening for notices that the lease may have changed hands (`notify`), and resolves
 * once a notice sent from then on would reach it; gives what stops listening. One that cannot
 * listen resolves all the same: the waiter then looks every `LEASE_FALLBACK_POLL_MS`.
 */
export type ListenForRelease = (notify: () => void) => Promise<() => void>;

/** How one lease is waited for (see `waitForLease`). */
export interface LeaseWait {
  clock: Clock;
  leaseMs: number;
  attempt: () => Promise<LeaseAttempt>;
  settled: (() => Promise<boolean>) | undefined;
  /** The error for a holder that never let go. */
  unavailable: (heldMs: number) => Error;
  listen: ListenForRelease;
}

/**
 * The waiting both leases share: try, and while another holds it wait for a notice of its
 * release (or the fallback look), then try again, asking `settled` whenever the holder changed
 * since the last look. A free lease is taken at the first try, without listening. Bounded by the
 * lease's time twice over. Resolves true once taken, false when `settled` said so.
 */
export async function waitForLease(wait: LeaseWait): Promise<boolean> {
  const { clock, leaseMs, attempt, settled } = wait;
  const until = clock.now() + 2 * leaseMs;
  const first = await attempt();
  if (first.taken) return true;
  const notices = new Notices();
  const stop = await wait.listen(() => notices.notify());
  try {
    // This try also catches a release between the first and the listening.
    let seen = first.holder;
    for (;;) {
      const tried = await attempt();
      if (tried.taken) return true;
      if (tried.holder !== seen && (await settled?.())) return false;
      seen = tried.holder;
      if (clock.now() >= until) throw wait.unavailable(2 * leaseMs);
      await notices.wait(clock, LEASE_FALLBACK_POLL_MS);
    }
  } finally {
    stop();
  }
}

/** Notices of one waiter: one that comes while it tries the lease is kept for its next wait. */
class Notices {
  private noticed = false;
  private wake: (() => void) | undefined;

  notify(): void {
    this.noticed = true;
    this.wake?.();
  }

  /** Waits for a notice given since the last wait, or `ms` on the clock. */
  async wait(clock: Clock, ms: number): Promise<void> {
    if (!this.noticed)
      await new Promise<void>((resolve) => {
        const timer = clock.setTimer(resolve, ms);
        this.wake = () => {
          timer.cancel();
          resolve();
        };
      });
    this.wake = undefined;
    this.noticed = false;
  }
}
