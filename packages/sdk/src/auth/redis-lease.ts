import { randomUUID } from 'node:crypto';
import { type Clock, sleep } from '../clock.js';
import { NetworkError } from '../errors.js';
import type { RedisBudgets } from '../http/redis-budget-state.js';
import { LEASE_POLL_MS, patience, type RefreshLease } from './lease.js';

/**
 * The refresh lease shared through the transport's Redis connection: `SET NX PX` takes it
 * for `leaseMs` (a holder that died frees it then), and a script releases it only for the
 * token that took it, so a holder that outlived its lease never frees another's. Key:
 * `<prefix>oauth:{<name>}:lease`.
 */

/** Deletes the lease only when it still holds the releaser's token. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export function redisLease(redis: RedisBudgets, clock: Clock, leaseMs: number): RefreshLease {
  const failed = (error: unknown) =>
    new NetworkError(
      `the token refresh lease (Redis) failed: ${error instanceof Error ? error.message : String(error)}`,
      { code: 'token_lease_unavailable', cause: error },
    );
  return {
    async take(name, settled) {
      const key = redis.key(`oauth:{${name}}:lease`);
      const token = randomUUID();
      const waiting = patience(clock, leaseMs);
      for (;;) {
        let taken: string | null;
        try {
          taken = await (await redis.client()).set(key, token, 'PX', leaseMs, 'NX');
        } catch (error) {
          throw failed(error);
        }
        if (taken === 'OK') break;
        if (!waiting()) throw failed(new Error(`another process held it for over ${2 * leaseMs} ms`));
        await sleep(clock, LEASE_POLL_MS);
        if (await settled?.()) return undefined;
      }
      return async () => {
        // A release that fails leaves the lease to expire by itself.
        await (await redis.client()).eval(RELEASE, 1, key, token).catch(() => undefined);
      };
    },
  };
}
