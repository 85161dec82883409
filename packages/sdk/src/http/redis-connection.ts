import type { Redis as IORedisClient, RedisOptions } from 'ioredis';
import { type Clock, sleep } from '../clock.js';

/** Loading ioredis (an optional peer dependency of the SDK), waiting for a connection, and ending one. */

type IORedisModule = typeof import('ioredis');
export type IORedisLoader = () => Promise<unknown>;

/** ioredis is missing: a setup problem, reported as it is rather than as a failing store. */
export class MissingIORedisError extends Error {
  override readonly name = 'MissingIORedisError';
}

/** Loads ioredis, an optional peer dependency of the SDK, or says plainly what is missing. */
export async function loadIORedis(load: IORedisLoader = () => import('ioredis')): Promise<IORedisModule['Redis']> {
  let loaded: unknown;
  try {
    loaded = await load();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MissingIORedisError(
      `createTransport({ redis }) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard/sdk (npm install ioredis) (${reason})`,
      { cause: error },
    );
  }
  const module = loaded as Partial<IORedisModule> & { default?: unknown };
  const Redis = module.Redis ?? (module.default as { Redis?: unknown } | undefined)?.Redis ?? module.default;
  if (typeof Redis !== 'function')
    throw new Error("createTransport({ redis }): the package 'ioredis' does not export a Redis client class");
  return Redis as IORedisModule['Redis'];
}

function describeEndpoint(client: IORedisClient): string {
  const options = client.options as RedisOptions & { path?: string };
  return options.path ?? `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
}

/** Connection failures that waiting out the connect timeout will not mend: nothing listens there. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

export function waitReady(
  client: IORedisClient,
  clock: Clock,
  timeoutMs: number,
  lastError: () => string | undefined,
): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const settle = () => {
      timer.cancel();
      client.off('ready', onReady);
      client.off('error', onError);
    };
    const timer = clock.setTimer(() => {
      settle();
      const last = lastError();
      reject(
        new Error(
          `no answer from Redis at ${describeEndpoint(client)} within ${timeoutMs} ms${last ? ` (${last})` : ''}`,
        ),
      );
    }, timeoutMs);
    const onReady = () => {
      settle();
      resolve();
    };
    const onError = (error: NodeJS.ErrnoException) => {
      if (!UNREACHABLE.has(error.code ?? '')) return;
      settle();
      reject(new Error(`Redis at ${describeEndpoint(client)} cannot be reached (${error.message})`));
    };
    client.once('ready', onReady);
    client.on('error', onError);
  });
}

/** Ends a client, politely first: QUIT sends what is pending; a client that cannot is cut off. */
export async function end(client: IORedisClient, clock: Clock): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    const patience = new AbortController();
    await Promise.race([
      client.quit().catch(() => undefined),
      sleep(clock, 1_000, patience.signal).catch(() => undefined),
    ]);
    patience.abort();
  }
  client.disconnect();
}
