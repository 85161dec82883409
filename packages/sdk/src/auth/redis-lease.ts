import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { NetworkError } from '../errors.js';
import type { RedisConnection } from '../redis/connection.js';
import { type LeaseAttempt, type RefreshLease, waitForLease } from './lease.js';
import { releaseChannelsOf } from './release-channels.js';

/**
 * The refresh lease shared through the transport's Redis: `SET NX PX` takes it for `leaseMs` (a
 * holder that died frees it then), and a script releases it only for the token that took it, so
 * a holder that outlived its lease never frees another's, and publishes the release on the
 * lease's channel, which wakes the processes waiting for it (release-channels.ts). Key:
 * `<prefix>oauth:{<name>}:lease`; channel: the key and `:released`.
 */

/** Deletes the lease only when it still holds the releaser's token, and says so on its channel. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '')
  return 1
end
return 0`;

export function redisLease(redis: RedisConnection, clock: Clock, leaseMs: number): RefreshLease {
  const failed = (error: unknown) =>
    new NetworkError(
      `the token refresh lease (Redis) failed: ${error instanceof Error ? error.message : String(error)}`,
      { code: 'token_lease_unavailable', cause: error },
    );
  const channels = releaseChannelsOf(redis);
  return {
    async take(name, settled) {
      const key = redis.key(`oauth:{${name}}:lease`);
      const channel = `${key}:released`;
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
      const taken = await waitForLease({
        clock,
        leaseMs,
        attempt,
        settled,
        unavailable: (heldMs) => failed(new Error(`another process held it for over ${heldMs} ms`)),
        // Without a subscriber (it could not connect) the fallback look still finds the release.
        listen: (notify) => channels.listen(channel, notify).catch(() => () => undefined),
      });
      if (!taken) return undefined;
      return async () => {
        // A release that fails leaves the lease to expire by itself.
        await (await redis.client()).eval(RELEASE, 1, key, token, channel).catch(() => undefined);
      };
    },
  };
}
