import type { Redis as IORedisClient, RedisOptions } from 'ioredis';
import { type Clock, sleep, systemClock } from '../clock.js';

/** What the connection reads of the transport's `redis` option (the budgets read the rest). */
export interface RedisConnectionOptions {
  url?: string;
  clientOptions?: Record<string, unknown>;
  client?: object;
  prefix?: string;
  connectTimeoutMs?: number;
}

const DEFAULT_PREFIX = 'plugboard:';
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

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
      `createHostTransport({ redis }) shares rate budgets through Redis with the package 'ioredis', which is not installed: add it next to @plugboard/sdk (npm install ioredis) (${reason})`,
      { cause: error },
    );
  }
  const module = loaded as Partial<IORedisModule> & { default?: unknown };
  const Redis = module.Redis ?? (module.default as { Redis?: unknown } | undefined)?.Redis ?? module.default;
  if (typeof Redis !== 'function')
    throw new Error("createHostTransport({ redis }): the package 'ioredis' does not export a Redis client class");
  return Redis as IORedisModule['Redis'];
}

function describeEndpoint(client: IORedisClient): string {
  const options = client.options as RedisOptions & { path?: string };
  return options.path ?? `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
}

/** Connection failures that waiting out the connect timeout will not mend: nothing listens there. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

function waitReady(
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
async function end(client: IORedisClient, clock: Clock): Promise<void> {
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

/** What a connection reads besides the option: the clock its timers read, and how ioredis is loaded (tests replace it). */
export interface RedisConnectionContext {
  clock?: Clock;
  load?: IORedisLoader;
}

interface Connected {
  client: IORedisClient;
  own: boolean;
}

/**
 * A transport's Redis (`createHostTransport({ redis })`): one client, connected on first use, on
 * which the shared rate budgets (http/redis-budget-state.ts) and the token refresh lease
 * (auth/redis-lease.ts) each keep their own keys; connections of its own for a subscriber
 * (`duplicate()`); `close()` ends what it opened.
 */
export class RedisConnection {
  readonly clock: Clock;
  private readonly options: RedisConnectionOptions;
  private readonly prefix: string;
  private readonly connectTimeoutMs: number;
  private readonly load: IORedisLoader;
  private connecting: Promise<Connected> | undefined;
  /** The connections `duplicate()` opened: this connection's own, whoever owns the client. */
  private readonly duplicates = new Set<IORedisClient>();
  private closed = false;
  private lastError: string | undefined;
  private readonly record = (error: unknown) => {
    this.lastError = error instanceof Error ? error.message : String(error);
  };

  constructor(option: string | RedisConnectionOptions, context: RedisConnectionContext = {}) {
    this.options = typeof option === 'string' ? { url: option } : option;
    if (!this.options.url && !this.options.client && !this.options.clientOptions) {
      throw new TypeError('createHostTransport({ redis }): give a Redis URL, clientOptions or an ioredis client');
    }
    this.clock = context.clock ?? systemClock;
    this.load = context.load ?? (() => import('ioredis'));
    this.prefix = this.options.prefix ?? DEFAULT_PREFIX;
    this.connectTimeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!Number.isInteger(this.connectTimeoutMs) || this.connectTimeoutMs < 1)
      throw new TypeError('createHostTransport({ redis }): connectTimeoutMs must be a positive whole number of ms');
  }

  /** A key of this deployment's (under the prefix). */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** The connected client (connecting on first use; a failed attempt is tried again by the next call). */
  async client(): Promise<IORedisClient> {
    return (await this.connect()).client;
  }

  /** A connection of its own to the same Redis (a subscriber), ready; ended by `close()`. */
  async duplicate(): Promise<IORedisClient> {
    const copy = (await this.client()).duplicate();
    copy.on('error', this.record);
    try {
      // Bounds real I/O, as the pool's connect timeout does, on real time: a subscriber connecting
      // while a waiter waits on a test's clock is not timed out by the test moving it.
      await waitReady(copy, systemClock, this.connectTimeoutMs, () => this.lastError);
      if (this.closed) throw new Error('this transport is closed');
    } catch (error) {
      copy.disconnect();
      throw error;
    }
    this.duplicates.add(copy);
    return copy;
  }

  private connect(): Promise<Connected> {
    if (this.closed) return Promise.reject(new Error('this transport is closed'));
    if (!this.connecting) {
      const attempt = this.open();
      this.connecting = attempt;
      attempt.catch(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private async open(): Promise<Connected> {
    const Redis = await loadIORedis(this.load);
    const given = this.options.client as IORedisClient | undefined;
    const clientOptions = (this.options.clientOptions ?? {}) as RedisOptions;
    const client = given ?? (this.options.url ? new Redis(this.options.url, clientOptions) : new Redis(clientOptions));
    client.on('error', this.record);
    try {
      await waitReady(client, this.clock, this.connectTimeoutMs, () => this.lastError);
      if (this.closed) throw new Error('this transport is closed');
    } catch (error) {
      client.off('error', this.record);
      if (!given) client.disconnect();
      throw error;
    }
    return { client, own: !given };
  }

  /** Ends the subscribers, and the client when this connection made it (a client given is its owner's to close). */
  async close(): Promise<void> {
    this.closed = true;
    const connected = await this.connecting?.catch(() => undefined);
    this.connecting = undefined;
    const ending = [...this.duplicates].map((copy) => end(copy, this.clock));
    this.duplicates.clear();
    if (connected?.own) ending.push(end(connected.client, this.clock));
    await Promise.all(ending);
  }
}
