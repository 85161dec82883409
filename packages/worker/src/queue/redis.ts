import { InvalidInputError } from '@plugboard/sdk';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { redactUrl } from '../database.js';
import { EvictionPolicyError, QueueUnavailableError } from './errors.js';

/**
 * The Redis the queue lives in: its URL checked and shown with the password masked, reached once
 * before BullMQ is handed it (BullMQ would otherwise retry a wrong address for ever), and, for a
 * worker, its eviction policy checked.
 */

/** What BullMQ is given, and how messages name the server. */
export interface QueueRedis {
  /** BullMQ's connection options: the URL, and no limit on a blocking command's retries (BullMQ requires it). */
  connection: { url: string; maxRetriesPerRequest: null };
  server: string;
}

/** The URL checked: `redis://` or `rediss://`, or an `InvalidInputError` naming the field without quoting it. */
export function queueRedis(url: string, field = 'redis'): QueueRedis {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError('Redis', [
      { path: field, message: 'is not a URL; give redis://[USER:PASSWORD@]HOST:PORT[/DB]' },
    ]);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new InvalidInputError('Redis', [
      { path: field, message: `must be a redis:// or rediss:// URL, not ${parsed.protocol}//` },
    ]);
  return { connection: { url, maxRetriesPerRequest: null }, server: redactUrl(parsed) };
}

/** The server's `maxmemory_policy`, as `INFO memory` reports it (CONFIG may be disabled on a managed Redis). */
function evictionPolicy(info: string): string | undefined {
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/**
 * Connects once, without retrying, and answers INFO: a server that cannot be reached is a
 * `QueueUnavailableError`; with `workers`, a policy other than `noeviction` an `EvictionPolicyError`.
 */
export async function reachRedis(redis: QueueRedis, purpose: { workers: boolean }): Promise<void> {
  const client = new Redis(redis.connection.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5_000,
  });
  // The socket's own failure (ECONNREFUSED ...) says more than connect()'s "Connection is closed".
  let socketError: unknown;
  client.on('error', (error) => {
    socketError ??= error;
  });
  try {
    await client.connect();
    const info = await client.info('memory');
    const policy = evictionPolicy(info);
    if (purpose.workers && policy !== undefined && policy !== 'noeviction')
      throw new EvictionPolicyError(redis.server, policy);
  } catch (error) {
    if (error instanceof EvictionPolicyError) throw error;
    const cause = socketError ?? error;
    const { message, code } = cause as { message?: string; code?: string };
    throw new QueueUnavailableError(redis.server, message || String(code ?? cause), cause);
  } finally {
    client.disconnect();
  }
}

/**
 * A BullMQ queue whose connection's errors reach the calls that needed it, not stderr: BullMQ
 * prints each one's stack when nothing listens.
 */
export function quietQueue<T = unknown>(name: string, connection: QueueRedis['connection']): Queue<T> {
  const queue = new Queue<T>(name, { connection });
  queue.on('error', () => {});
  return queue;
}

/** A queue over a connection of its own that never waits for Redis: see `callerQueue`. */
export interface CallerQueue<T> {
  queue: Queue<T>;
  /** Ends the queue and its connection, at once when Redis is away. */
  end(): Promise<void>;
}

/**
 * A queue for calls that each want an answer now (queueing a run): its connection holds no
 * command while Redis cannot be reached and never reconnects, so a call fails at once once Redis
 * went away, instead of waiting in memory for it to come back, and ending it never waits on Redis.
 * Whoever holds it makes a new one, Redis reached again, for the next call.
 */
export function callerQueue<T = unknown>(name: string, redis: QueueRedis): CallerQueue<T> {
  const client = new Redis(redis.connection.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  const queue = new Queue<T>(name, { connection: client });
  queue.on('error', () => {});
  return {
    queue,
    async end() {
      await queue.close().catch(() => undefined);
      await client.quit().catch(() => client.disconnect());
    },
  };
}
