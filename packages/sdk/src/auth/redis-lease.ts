import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { NetworkError } from '../errors.js';
import type { RedisBudgets } from '../http/redis-budget-state.js';
import { type LeaseAttempt, type RefreshLease, waitForLease } from './lease.js';

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
      const attempt = async (): Promise<LeaseAttempt> => {
        try {
          const client = await redis.client();
          if ((await client.set(key, token, 'PX', leaseMs, 'NX')) === 'OK') return { taken: true };
          return { taken: false, holder: (await client.get(key)) ?? undefined };
        } catch (error) {
          throw failed(error);
        }
      };
      const unavailable = (heldMs: number) => failed(new Error(`another process held it for over ${heldMs} ms`));
      if (!(await waitForLease(clock, leaseMs, attempt, settled, unavailable))) return undefined;
      return async () => {
        // A release that fails leaves the lease to expire by itself.
        await (await redis.client()).eval(RELEASE, 1, key, token).catch(() => undefined);
      };
    },
  };
}
