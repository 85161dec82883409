import type Bottleneck from 'bottleneck';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis as IORedisClient, RedisOptions } from 'ioredis';
import { NetworkError } from '../errors.js';
import type { BudgetState } from './budget-rules.js';
import type {
  BudgetBackend,
  BudgetEntry,
  BudgetKey,
  BudgetStateStore,
  ProbeClaim,
  WindowPlace,
} from './shared-budget.js';

/**
 * Rate budgets shared through Redis: every process that uses the same Redis
 * and the same (connector, connection, budget) keeps one budget together.
 *
 * Keys, for the budget `<connector>:<owner>:<budget>` (owner: the connection,
 * or `*` for a connector-wide budget) under the prefix (`plugboard:` unless
 * set), all in one Redis Cluster hash slot thanks to the `{...}` tag:
 *
 * | key | type | holds | expires |
 * | --- | --- | --- | --- |
 * | `<prefix>budget:{<budget>}:window` | sorted set | one member per request holding a window place, scored by when it leaves the window less the period: its answer time (Redis server clock, ms), or while it runs the latest time its answer may come | one period (plus a second) after the latest score |
 * | `<prefix>budget:{<budget>}:pause` | string | present while the budget is paused | when the pause ends (PX) |
 * | `<prefix>budget:{<budget>}:pauses` | counter | pauses started so far | `idleTtlMs` after the latest pause |
 * | `<prefix>budget:{<budget>}:probe` | string | the token of the request that is the probe | `probeTtlMs` after its latest renewal |
 * | `<prefix>budget:{<budget>}:confirmed` | string | present once a request came back without a 429 since the last pause | `idleTtlMs` after the latest confirmation |
 * | `b_<prefix>budget:{<budget>}:limiter_*` | Bottleneck's | the clustered limiter's settings and running jobs | `idleTtlMs` after the latest job (Bottleneck's `timeout`) |
 *
 * Each question is one Lua script, so it is atomic across processes; the
 * window uses the Redis server's `TIME`, so machines whose clocks disagree
 * still count one window.
 */

/** How the transport reaches Redis to share its rate budgets. */
export interface RedisBudgetOptions {
  /** `redis://[[user]:password@]host[:port][/db]` (or `rediss://` for TLS). */
  url?: string;
  /** Options for ioredis' constructor (`host`, `port`, `password`, `db`, `tls`, ...), merged over the URL's. */
  clientOptions?: Record<string, unknown>;
  /**
   * An ioredis client (`new Redis(...)`) of the caller's own, used instead of
   * `url` and `clientOptions`. The transport duplicates it for Bottleneck's
   * connections and does not close it: its owner does.
   */
  client?: object;
  /** Put before every key, to keep apart deployments that share one Redis. Default `plugboard:`. */
  prefix?: string;
  /**
   * How long a probe's claim lasts unless its holder renews it (it renews it
   * every third of this while its request runs). A process that dies holding
   * the probe blocks the budget for at most this long. Default 10 s.
   */
  probeTtlMs?: number;
  /** How long a budget's confirmation, pause count and limiter settings stay in Redis after their latest use. Default one hour. */
  idleTtlMs?: number;
  /** How long the first request waits for Redis to answer before it fails. Default 10 s. */
  connectTimeoutMs?: number;
}

/** `createTransport({ redis })`: a Redis URL, or the options. */
export type RedisBudgetsOption = string | RedisBudgetOptions;

const DEFAULT_PREFIX = 'plugboard:';
const DEFAULT_PROBE_TTL_MS = 10_000;
const DEFAULT_IDLE_TTL_MS = 3_600_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How often a request waiting on another process's probe asks again. */
const PROBE_POLL_MS = 25;
/** How often a request asks again when every window place is held by a request still running. */
const RUNNING_POLL_MS = 10;

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

/** A Lua script run by its SHA1, loaded again when the server does not know it. */
class Script {
  private shaOfLua: string | undefined;

  constructor(private readonly lua: string) {}

  private get sha(): string {
    this.shaOfLua ??= createHash('sha1').update(this.lua).digest('hex');
    return this.shaOfLua;
  }

  async run(client: IORedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return client.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

/**
 * Where a request stands. KEYS: pause, confirmed, probe. ARGV: token, probe TTL (ms).
 * Returns {1, ms} paused, {2, 0} open, {3, 0} this request is the probe, {4, ms} another is.
 */
const ENTER = new Script(`
local paused = redis.call('PTTL', KEYS[1])
if paused > 0 then return {1, paused} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {2, 0} end
if redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then return {3, 0} end
return {4, redis.call('PTTL', KEYS[3])}
`);

/**
 * The sliding window. KEYS: window. ARGV: limit, period (ms), member, hold (ms).
 * Drops the places that left the window; then, when fewer than limit are held,
 * takes one for the member, scored as if its answer came `hold` from now
 * (`ANSWERED` scores the real answer), and returns 0; else returns the ms until
 * the earliest place leaves (a short poll when every place is still running).
 */
const TAKE_PLACE = new Script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
if redis.call('ZCARD', KEYS[1]) < limit then
  local score = now + tonumber(ARGV[4])
  redis.call('ZADD', KEYS[1], score, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], score - now + period + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + period - now
if tonumber(oldest[2]) > now then wait = math.min(period, ${RUNNING_POLL_MS}) end
if wait < 1 then wait = 1 end
return wait
`);

/**
 * A request's answer came: its place leaves the window one period from now
 * (the next whole millisecond: never before a period after the answer).
 * KEYS: window. ARGV: member. The key's expiry, set for the latest running
 * request, already outlasts every earlier score.
 */
const ANSWERED = new Script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.ceil(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return 0
`);

/**
 * A pause. KEYS: pause, confirmed, pauses. ARGV: ms, idle TTL (ms).
 * A pause shorter than the one running changes nothing; a longer one replaces
 * it and asks for a probe again; one after the budget was open counts as new.
 * Returns the number of pauses so far.
 */
const PAUSE = new Script(`
local ms = tonumber(ARGV[1])
local left = redis.call('PTTL', KEYS[1])
local count = tonumber(redis.call('GET', KEYS[3]) or '0')
if left >= ms then return count end
redis.call('SET', KEYS[1], '1', 'PX', ms)
redis.call('DEL', KEYS[2])
if left <= 0 then count = redis.call('INCR', KEYS[3]) end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return count
`);

/** Renews the probe's claim while its holder still has it. KEYS: probe. ARGV: token, TTL (ms). */
const RENEW = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** Gives the probe back, only by its holder. KEYS: probe. ARGV: token. */
const RELEASE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

interface Connected {
  client: IORedisClient;
  own: boolean;
  connection: Bottleneck.IORedisConnection;
}

function describeEndpoint(client: IORedisClient): string {
  const options = client.options as RedisOptions & { path?: string };
  return options.path ?? `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
}

/** Connection failures that waiting out the connect timeout will not mend: nothing listens there. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

function waitReady(client: IORedisClient, timeoutMs: number, lastError: () => string | undefined): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
    };
    const timer = setTimeout(() => {
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
async function end(client: IORedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    await Promise.race([client.quit().catch(() => undefined), sleep(1_000)]);
  }
  client.disconnect();
}

/**
 * The Redis side of a transport: one client for the budgets' scripts, and one
 * Bottleneck connection (a client and a subscriber) for all of its clustered
 * limiters. Connects on first use; `close()` ends every connection it opened.
 */
export class RedisBudgets implements BudgetBackend {
  private readonly options: RedisBudgetOptions;
  private readonly prefix: string;
  private readonly probeTtlMs: number;
  private readonly idleTtlMs: number;
  private readonly connectTimeoutMs: number;
  private connecting: Promise<Connected> | undefined;
  private closed = false;
  private lastError: string | undefined;

  constructor(
    option: RedisBudgetsOption,
    private readonly load: IORedisLoader = () => import('ioredis'),
  ) {
    this.options = typeof option === 'string' ? { url: option } : option;
    if (!this.options.url && !this.options.client && !this.options.clientOptions) {
      throw new TypeError('createTransport({ redis }): give a Redis URL, clientOptions or an ioredis client');
    }
    this.prefix = this.options.prefix ?? DEFAULT_PREFIX;
    this.probeTtlMs = this.options.probeTtlMs ?? DEFAULT_PROBE_TTL_MS;
    this.idleTtlMs = this.options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.connectTimeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    for (const [name, value] of [
      ['probeTtlMs', this.probeTtlMs],
      ['idleTtlMs', this.idleTtlMs],
      ['connectTimeoutMs', this.connectTimeoutMs],
    ] as const) {
      if (!Number.isInteger(value) || value < 1)
        throw new TypeError(`createTransport({ redis }): ${name} must be a positive whole number of ms`);
    }
  }

  /** The key every other key of a budget starts with. */
  base(key: BudgetKey): string {
    return `${this.prefix}budget:{${key.connectorKey}:${key.owner}:${key.name}}`;
  }

  /** The connected client (connecting on first use; a failed attempt is tried again by the next request). */
  async client(): Promise<IORedisClient> {
    return (await this.connect()).client;
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
    const record = (error: unknown) => {
      this.lastError = error instanceof Error ? error.message : String(error);
    };
    const given = this.options.client as IORedisClient | undefined;
    const clientOptions = (this.options.clientOptions ?? {}) as RedisOptions;
    const client = given ?? (this.options.url ? new Redis(this.options.url, clientOptions) : new Redis(clientOptions));
    client.on('error', record);
    try {
      await waitReady(client, this.connectTimeoutMs, () => this.lastError);
    } catch (error) {
      client.off('error', record);
      if (!given) client.disconnect();
      throw error;
    }
    // Bottleneck's own pair (commands, and a subscriber for its capacity messages).
    const { default: Limiter } = await import('bottleneck');
    const connection = new Limiter.IORedisConnection({ client: client.duplicate(), Redis });
    connection.on('error', record);
    if (this.closed) {
      await connection.disconnect(false);
      if (!given) client.disconnect();
      throw new Error('this transport is closed');
    }
    return { client, own: !given, connection };
  }

  /** A storage failure, as the request that met it reports it: a retryable network error. */
  fail(budget: string, error: unknown): Error {
    if (error instanceof MissingIORedisError || error instanceof NetworkError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new NetworkError(`rate budget '${budget}': the shared budget store (Redis) failed: ${reason}`, {
      code: 'budget_store_unavailable',
      cause: error,
    });
  }

  state(key: BudgetKey): BudgetStateStore {
    return new RedisBudgetState(
      this,
      this.base(key),
      `${key.connectorKey}/${key.name}`,
      this.probeTtlMs,
      this.idleTtlMs,
    );
  }

  /**
   * A Bottleneck limiter clustered on this Redis. The first limiter of an id
   * stores its settings in Redis and the others use them; a process whose
   * declared concurrency differs replaces them (`updateSettings`) rather than
   * wiping the limiter's state (`clearDatastore` would also forget the jobs
   * other processes are running). The settings expire after `idleTtlMs`
   * without a job (Bottleneck's `timeout`).
   */
  async limiter(key: BudgetKey, options: Bottleneck.ConstructorOptions): Promise<Bottleneck> {
    const name = `${key.connectorKey}/${key.name}`;
    let connected: Connected;
    try {
      connected = await this.connect();
    } catch (error) {
      throw this.fail(name, error);
    }
    const id = `${this.base(key)}:limiter`;
    const { default: Limiter } = await import('bottleneck');
    const limiter = new Limiter({
      ...options,
      id,
      datastore: 'ioredis',
      connection: connected.connection,
      timeout: this.idleTtlMs,
      clearDatastore: false,
    });
    limiter.on('error', (error: unknown) => {
      this.lastError = error instanceof Error ? error.message : String(error);
    });
    try {
      await Promise.race([
        limiter.ready(),
        sleep(this.connectTimeoutMs, undefined, { ref: false }).then(() => {
          throw new Error(`Bottleneck's connection to Redis was not ready within ${this.connectTimeoutMs} ms`);
        }),
      ]);
      const stored = await connected.client.hget(`b_${id}_settings`, 'maxConcurrent');
      const wanted =
        options.maxConcurrent === null || options.maxConcurrent === undefined ? '' : String(options.maxConcurrent);
      if (stored !== null && stored !== wanted)
        await limiter.updateSettings({ maxConcurrent: options.maxConcurrent ?? null });
    } catch (error) {
      await limiter.disconnect(false);
      throw this.fail(name, error);
    }
    return limiter;
  }

  async close(): Promise<void> {
    this.closed = true;
    const connected = await this.connecting?.catch(() => undefined);
    this.connecting = undefined;
    if (!connected) return;
    await Promise.race([connected.connection.disconnect(true).catch(() => undefined), sleep(1_000)]);
    const clients = connected.connection as unknown as { client?: IORedisClient; subscriber?: IORedisClient };
    for (const client of [clients.client, clients.subscriber]) if (client) client.disconnect();
    if (connected.own) await end(connected.client);
  }
}

/** One budget's state in Redis (see the key table above). */
export class RedisBudgetState implements BudgetStateStore {
  readonly shared = true;
  private readonly keys: { window: string; pause: string; pauses: string; probe: string; confirmed: string };
  /** Names this process's window entries apart from the others'. */
  private readonly origin = randomUUID();
  private sequence = 0;
  private seen: BudgetState = { pausedUntil: 0, confirmed: false, pauses: 0 };

  constructor(
    private readonly redis: RedisBudgets,
    base: string,
    private readonly name: string,
    private readonly probeTtlMs: number,
    private readonly idleTtlMs: number,
  ) {
    this.keys = {
      window: `${base}:window`,
      pause: `${base}:pause`,
      pauses: `${base}:pauses`,
      probe: `${base}:probe`,
      confirmed: `${base}:confirmed`,
    };
  }

  private async call<T>(work: (client: IORedisClient) => Promise<T>): Promise<T> {
    try {
      return await work(await this.redis.client());
    } catch (error) {
      throw this.redis.fail(this.name, error);
    }
  }

  async enter(): Promise<BudgetEntry> {
    const token = randomUUID();
    const [kind, ms] = (await this.call((client) =>
      ENTER.run(client, [this.keys.pause, this.keys.confirmed, this.keys.probe], [token, this.probeTtlMs]),
    )) as [number, number];
    if (kind === 1) {
      this.seen = { ...this.seen, pausedUntil: Date.now() + ms, confirmed: false };
      return { kind: 'paused', waitMs: ms };
    }
    if (kind === 2) {
      this.seen = { ...this.seen, confirmed: true };
      return { kind: 'open' };
    }
    if (kind === 3) return { kind: 'probe', claim: this.claim(token) };
    return { kind: 'probing' };
  }

  /** The probe this process holds: renewed while its request runs, given back after. */
  private claim(token: string): ProbeClaim {
    const renew = setInterval(
      () => {
        void this.call((client) => RENEW.run(client, [this.keys.probe], [token, this.probeTtlMs])).catch(
          () => undefined,
        );
      },
      Math.max(1, Math.floor(this.probeTtlMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.call((client) => RELEASE.run(client, [this.keys.probe], [token]));
      },
    };
  }

  async takePlace(limit: number, periodMs: number, holdMs: number): Promise<WindowPlace> {
    const member = `${this.origin}:${(this.sequence += 1)}`;
    const period = Math.ceil(periodMs);
    const wait = Number(
      await this.call((client) =>
        TAKE_PLACE.run(client, [this.keys.window], [limit, period, member, Math.ceil(holdMs)]),
      ),
    );
    if (wait > 0) return { wait };
    return {
      wait: 0,
      answered: () => this.call((client) => ANSWERED.run(client, [this.keys.window], [member])).then(() => undefined),
    };
  }

  async pausedFor(): Promise<number> {
    const ms = Number(await this.call((client) => client.pttl(this.keys.pause)));
    const left = Math.max(0, ms);
    this.seen = { ...this.seen, pausedUntil: left > 0 ? Date.now() + left : this.seen.pausedUntil };
    return left;
  }

  async pause(ms: number): Promise<void> {
    const duration = Math.max(1, Math.ceil(ms));
    const count = await this.call((client) =>
      PAUSE.run(client, [this.keys.pause, this.keys.confirmed, this.keys.pauses], [duration, this.idleTtlMs]),
    );
    const until = Date.now() + duration;
    this.seen = { pausedUntil: Math.max(until, this.seen.pausedUntil), confirmed: false, pauses: Number(count) };
  }

  async confirm(): Promise<void> {
    await this.call((client) => client.set(this.keys.confirmed, '1', 'PX', this.idleTtlMs));
    this.seen = { ...this.seen, confirmed: true };
  }

  probeSettled(signal: AbortSignal): Promise<void> {
    return sleep(PROBE_POLL_MS, undefined, { signal });
  }

  snapshot(): BudgetState {
    return { ...this.seen };
  }

  async read(): Promise<BudgetState> {
    const [pause, confirmed, pauses] = await this.call(async (client) => {
      const results =
        (await client.multi().pttl(this.keys.pause).exists(this.keys.confirmed).get(this.keys.pauses).exec()) ?? [];
      return results.map(([error, value]) => {
        if (error) throw error;
        return value;
      });
    });
    const left = Math.max(0, Number(pause));
    this.seen = {
      pausedUntil: left > 0 ? Date.now() + left : this.seen.pausedUntil,
      confirmed: Number(confirmed) === 1,
      pauses: Number(pauses ?? 0),
    };
    return { ...this.seen };
  }
}
