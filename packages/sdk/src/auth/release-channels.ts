import type { Redis as IORedisClient } from 'ioredis';
import type { RedisConnection } from '../redis/connection.js';

/**
 * How processes waiting for a Redis refresh lease learn that its holder let go: the holder's
 * release publishes on the lease's channel (`<lease key>:released`, named as the key is: by
 * connector and connection, nothing secret). A process subscribes through one connection of its
 * own, a duplicate of the transport's, made when its first waiter listens and ended with the
 * transport; its waiters share it, each channel subscribed while someone waits on it.
 */
export class ReleaseChannels {
  private subscriber: Promise<IORedisClient> | undefined;
  private readonly channels = new Map<string, { listeners: Set<() => void>; subscribed: Promise<unknown> }>();

  constructor(private readonly connection: RedisConnection) {}

  /** Calls `notify` on every release published on `channel` from when it resolves; gives what stops it. */
  async listen(channel: string, notify: () => void): Promise<() => void> {
    const subscriber = await this.connect();
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { listeners: new Set(), subscribed: subscriber.subscribe(channel) };
      this.channels.set(channel, entry);
    }
    const { listeners, subscribed } = entry;
    listeners.add(notify);
    const stop = () => {
      listeners.delete(notify);
      if (listeners.size > 0 || this.channels.get(channel) !== entry) return;
      this.channels.delete(channel);
      void subscriber.unsubscribe(channel).catch(() => undefined);
    };
    try {
      await subscribed;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  private connect(): Promise<IORedisClient> {
    if (!this.subscriber) {
      const made = this.connection.duplicate().then((subscriber) => {
        subscriber.on('message', (channel: string) => {
          for (const notify of this.channels.get(channel)?.listeners ?? []) notify();
        });
        return subscriber;
      });
      this.subscriber = made;
      // One that failed is made again by the next waiter.
      made.catch(() => {
        if (this.subscriber === made) this.subscriber = undefined;
      });
    }
    return this.subscriber;
  }
}

const kept = new WeakMap<RedisConnection, ReleaseChannels>();

/** The release channels of the process on `connection`: one subscriber for all of its leases. */
export function releaseChannelsOf(connection: RedisConnection): ReleaseChannels {
  let channels = kept.get(connection);
  if (!channels) kept.set(connection, (channels = new ReleaseChannels(connection)));
  return channels;
}
