import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { NetworkError } from '../errors.js';
import { MissingIORedisError, RedisConnection, type RedisConnectionContext } from '../redis/connection.js';
import type { BudgetState, Lesson } from './budget-rules.js';
import { ACQUIRED, type BudgetClient, defineBudgetCommands, FINISHED } from './redis-scripts.js';
import type {
  Admission,
  AdmissionRequest,
  BudgetBackend,
  BudgetKey,
  BudgetStateStore,
  RequestEnd,
  Ticket,
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
 * | `<prefix>budget:{<budget>}:window` | sorted set | one member per request holding a window place, scored by when it leaves the window less the period: its answer time (Redis server clock, ms), or while it runs the latest time its answer may come | one period (plus a second) after the latest score; `idleTtlMs` with no declared rate |
 * | `<prefix>budget:{<budget>}:running` | sorted set | one member per request running, when the budget declares a concurrency or no rate, scored by when its lease ends: its send timeout, plus a second, from when the request was written (until then, from when it was let in) | a second after the latest lease ends |
 * | `<prefix>budget:{<budget>}:concurrency` | string | the concurrency declared by the process that used the budget last after starting (`0`: none); every process keeps to it | `idleTtlMs` after the latest request |
 * | `<prefix>budget:{<budget>}:pause` | string | present while the budget is paused | when the pause ends (PX) |
 * | `<prefix>budget:{<budget>}:pauses` | counter | pauses started so far | `idleTtlMs` after the latest pause |
 * | `<prefix>budget:{<budget>}:probe` | string | the token of the request that is the probe | `probeTtlMs` after its latest renewal |
 * | `<prefix>budget:{<budget>}:confirmed` | string | present once a request came back without a 429 since the last pause | `idleTtlMs` after the latest confirmation |
 * | `<prefix>budget:{<budget>}:learn` | hash | a budget with no declared rate only: the window learned, the current run, the requests sent and the room the provider left (`redis-learn-scripts.ts`) | `idleTtlMs` after the latest request |
 *
 * Each question is one Lua script (`redis-scripts.ts`), so it is atomic across
 * processes; the window uses the Redis server's `TIME`, so machines whose
 * clocks disagree still count one window. Keys of the layout before this one
 * (Bottleneck's `b_<prefix>budget:...:limiter_*`) are not read and expire by themselves.
 */

/** How the transport reaches Redis to share its rate budgets. */
export interface RedisBudgetOptions {
  /** `redis://[[user]:password@]host[:port][/db]` (or `rediss://` for TLS). */
  url?: string;
  /** Options for ioredis' constructor (`host`, `port`, `password`, `db`, `tls`, ...), merged over the URL's. */
  clientOptions?: Record<string, unknown>;
  /**
   * An ioredis client (`new Redis(...)`) of the caller's own, used instead of
   * `url` and `clientOptions`. The transport registers its scripts on it
   * (`defineCommand`, commands named `plugboardBudget*`) and does not close it: its owner does.
   * A process waiting for another's token refresh subscribes through a copy of it
   * (`duplicate()`), which the transport opens when first needed and closes.
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
  /** How long a budget's confirmation, pause count and declared concurrency stay in Redis after their latest use. Default one hour. */
  idleTtlMs?: number;
  /** How long the first request waits for Redis to answer before it fails. Default 10 s. */
  connectTimeoutMs?: number;
}

/** `createHostTransport({ redis })`: a Redis URL, or the options. */
export type RedisBudgetsOption = string | RedisBudgetOptions;

const DEFAULT_PROBE_TTL_MS = 10_000;
const DEFAULT_IDLE_TTL_MS = 3_600_000;
/** How long after its send timeout a running request's slot outlives it, for the time its answer takes to be read. */
const LEASE_MARGIN_MS = 1_000;
/**
 * How much of a slot's lease must be left, by this process's count, when its request is
 * written: time for the lease's new start to reach Redis. A request let in longer ago is not
 * written (its slot may be another's by now) and asks for its turn again.
 */
const LEASE_LEFT_MS = LEASE_MARGIN_MS / 2;

/** What `RedisBudgets` reads besides the option: the clock its timers read, how ioredis is loaded (tests replace it), and the transport's connection when it has one. */
export interface RedisBudgetsContext extends RedisConnectionContext {
  /** The connection to use (its owner closes it); without it the budgets open one of their own from the option. */
  connection?: RedisConnection;
}

/**
 * The Redis side of a transport's budgets: the budgets' scripts registered on the connection's
 * client, for all of its budgets. `close()` ends the connection when it opened it.
 */
export class RedisBudgets implements BudgetBackend {
  private readonly connection: RedisConnection;
  private readonly ownConnection: boolean;
  private readonly probeTtlMs: number;
  private readonly idleTtlMs: number;
  private readonly clock: Clock;
  /** The clients the scripts are registered on (a connection that failed makes another). */
  private readonly defined = new WeakSet<object>();

  constructor(option: RedisBudgetsOption, context: RedisBudgetsContext = {}) {
    const options = typeof option === 'string' ? { url: option } : option;
    this.connection = context.connection ?? new RedisConnection(options, context);
    this.ownConnection = context.connection === undefined;
    this.clock = this.connection.clock;
    this.probeTtlMs = options.probeTtlMs ?? DEFAULT_PROBE_TTL_MS;
    this.idleTtlMs = options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    for (const [name, value] of [
      ['probeTtlMs', this.probeTtlMs],
      ['idleTtlMs', this.idleTtlMs],
    ] as const) {
      if (!Number.isInteger(value) || value < 1)
        throw new TypeError(`createHostTransport({ redis }): ${name} must be a positive whole number of ms`);
    }
  }

  /** The key every other key of a budget starts with. */
  base(key: BudgetKey): string {
    return this.connection.key(`budget:{${key.connectorKey}:${key.owner}:${key.name}}`);
  }

  /** The connected client, the budgets' scripts registered on it. */
  async client(): Promise<BudgetClient> {
    const client = await this.connection.client();
    if (this.defined.has(client)) return client as BudgetClient;
    this.defined.add(client);
    return defineBudgetCommands(client);
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
    return new RedisBudgetState(this, this.base(key), `${key.connectorKey}/${key.name}`, {
      probeTtlMs: this.probeTtlMs,
      idleTtlMs: this.idleTtlMs,
      clock: this.clock,
    });
  }

  async close(): Promise<void> {
    if (this.ownConnection) await this.connection.close();
  }
}

/** A running slot a request holds: `leasedAt` (`performance.now()`) is no later than when Redis last started its lease. */
interface Lease {
  client: BudgetClient;
  leasedAt: number;
  lease: number;
}

/** Where a request of a budget with no declared rate went: the pause count then, its place among the requests sent, and how many ran beside it. */
interface Place {
  epoch: number;
  seq: number;
  beside: number;
}

/** The arguments of `plugboardBudgetFinishLearning` after the common ones (redis-learn-scripts.ts). */
function learnArgs(place: Place, lesson: Lesson | undefined): number[] {
  const flag = (value: boolean | undefined) => (value ? 1 : 0);
  return [
    place.epoch,
    place.seq,
    place.beside,
    flag(lesson?.admitted),
    flag(lesson?.refused),
    flag(lesson?.teaches),
    lesson?.remaining ?? -1,
  ];
}

/** How `RedisBudgetState` keeps time. */
interface StateSettings {
  probeTtlMs: number;
  idleTtlMs: number;
  clock: Clock;
}

/** One budget's state in Redis (see the key table above). */
export class RedisBudgetState implements BudgetStateStore {
  private readonly keys: {
    window: string;
    running: string;
    concurrency: string;
    pause: string;
    pauses: string;
    probe: string;
    confirmed: string;
    learn: string;
  };
  /** Names this process's requests apart from the others'. */
  private readonly origin = randomUUID();
  private sequence = 0;
  /** This process has stored its declared concurrency as the budget's. */
  private declared = false;
  private seen: BudgetState = { pausedUntil: 0, confirmed: false, pauses: 0 };

  constructor(
    private readonly redis: RedisBudgets,
    base: string,
    private readonly name: string,
    private readonly settings: StateSettings,
  ) {
    this.keys = {
      window: `${base}:window`,
      running: `${base}:running`,
      concurrency: `${base}:concurrency`,
      pause: `${base}:pause`,
      pauses: `${base}:pauses`,
      probe: `${base}:probe`,
      confirmed: `${base}:confirmed`,
      learn: `${base}:learn`,
    };
  }

  private async call<T>(work: (client: BudgetClient) => Promise<T>): Promise<T> {
    try {
      return await work(await this.redis.client());
    } catch (error) {
      throw this.redis.fail(this.name, error);
    }
  }

  private pausedUntil(leftMs: number): number {
    return leftMs > 0 ? this.settings.clock.now() + leftMs : this.seen.pausedUntil;
  }

  async acquire(request: AdmissionRequest, count: number): Promise<Admission> {
    const { window, running, concurrency, pause, confirmed, probe, pauses, learn } = this.keys;
    const tokens = Array.from({ length: count }, () => `${this.origin}:${(this.sequence += 1)}`);
    const hold = Math.ceil(request.holdMs);
    const lease = hold + LEASE_MARGIN_MS;
    // No declared rate: the variant that learns the provider's window (redis-learn-scripts.ts).
    const learning = request.limit === undefined;
    const args = [
      this.settings.probeTtlMs,
      request.limit ?? 0,
      Math.ceil(request.periodMs ?? 0),
      hold,
      request.maxConcurrent ?? 0,
      this.declared ? 0 : 1,
      this.settings.idleTtlMs,
      lease,
      ...tokens,
    ];
    // Redis starts the leases no earlier than now: they last at least `lease` from here.
    const askedAt = performance.now();
    let connected: BudgetClient | undefined;
    const keys = [pause, confirmed, probe, window, running, concurrency];
    const reply = (await this.call((client) =>
      learning
        ? (connected = client).plugboardBudgetAcquireLearning(...keys, learn, pauses, ...args)
        : (connected = client).plugboardBudgetAcquire(...keys, ...args),
    )) as number[];
    this.declared = true;
    const [kind = ACQUIRED.busy, ms = 0, going = 0, slots = 0] = reply;
    switch (kind) {
      case ACQUIRED.go: {
        if (ms === 0) this.seen = { ...this.seen, confirmed: true };
        const slot = () => (slots === 1 ? { client: connected!, leasedAt: askedAt, lease } : undefined);
        const [epoch = 0, sent = 0, runningBefore = 0] = reply.slice(4);
        return {
          kind: 'go',
          tickets: tokens
            .slice(0, going)
            .map((token, index) =>
              this.ticket(
                token,
                index === 0 && ms === 1,
                slot(),
                learning ? { epoch, seq: sent + index + 1, beside: runningBefore + index } : undefined,
              ),
            ),
        };
      }
      case ACQUIRED.paused:
        this.seen = { ...this.seen, pausedUntil: this.pausedUntil(ms), confirmed: false };
        return { kind: 'paused', waitMs: ms };
      case ACQUIRED.probing:
        return { kind: 'probing' };
      case ACQUIRED.busy:
        return { kind: 'busy' };
      default:
        return { kind: 'window', waitMs: ms, limit: reply[2] ?? 0, periodMs: reply[3] ?? 0 };
    }
  }

  /**
   * Starts a running slot's lease again as its request is written, unless too little of it may
   * be left (`LEASE_LEFT_MS`): then the request must not be written.
   */
  private writing(token: string, slot: Lease): boolean {
    const now = performance.now();
    if (now - slot.leasedAt > slot.lease - LEASE_LEFT_MS) return false;
    slot.leasedAt = now;
    // Not awaited, and sent at once: Redis reads it before anything this process sends it later.
    slot.client.plugboardBudgetWriting(this.keys.running, token, slot.lease).catch(() => undefined);
    return true;
  }

  /** What a request that went holds: its probe claim is renewed until it ends; its running slot, if any, is leased again when it is written. */
  private ticket(token: string, probe: boolean, slot?: Lease, place?: Place): Ticket {
    const { clock, probeTtlMs } = this.settings;
    let renewal: { cancel(): void } | undefined;
    const renew = () => {
      renewal = clock.setTimer(
        () => {
          void this.call((client) => client.plugboardBudgetRenew(this.keys.probe, token, probeTtlMs)).catch(
            () => undefined,
          );
          renew();
        },
        Math.max(1, Math.floor(probeTtlMs / 3)),
      );
    };
    if (probe) renew();
    let ended = false;
    return {
      probe,
      writing: () => (slot ? this.writing(token, slot) : true),
      end: async (how: RequestEnd, answeredAt?: number, lesson?: Lesson) => {
        if (ended) return;
        ended = true;
        renewal?.cancel();
        const [outcome, pauseMs] =
          typeof how === 'object' ? [FINISHED.pause, Math.max(1, Math.ceil(how.pauseMs))] : [FINISHED[how], 0];
        const { window, running, pause, confirmed, pauses } = this.keys;
        const keys = [window, running, this.keys.probe, pause, confirmed, pauses];
        const args = [
          token,
          outcome,
          pauseMs,
          this.settings.idleTtlMs,
          answeredAt === undefined ? 0 : Math.max(0, Math.floor(performance.now() - answeredAt)),
        ];
        const count = await this.call((client) =>
          place
            ? client.plugboardBudgetFinishLearning(...keys, this.keys.learn, ...args, ...learnArgs(place, lesson))
            : client.plugboardBudgetFinish(...keys, ...args),
        );
        if (outcome === FINISHED.pause) this.paused(pauseMs, Number(count));
        else if (outcome === FINISHED.confirm) this.seen = { ...this.seen, confirmed: true };
      },
    };
  }

  private paused(ms: number, pauses: number): void {
    const until = this.settings.clock.now() + ms;
    this.seen = { pausedUntil: Math.max(until, this.seen.pausedUntil), confirmed: false, pauses };
  }

  async pause(ms: number): Promise<void> {
    const duration = Math.max(1, Math.ceil(ms));
    const { pause, confirmed, pauses } = this.keys;
    const count = await this.call((client) =>
      client.plugboardBudgetPause(pause, confirmed, pauses, duration, this.settings.idleTtlMs),
    );
    this.paused(duration, Number(count));
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
      pausedUntil: this.pausedUntil(left),
      confirmed: Number(confirmed) === 1,
      pauses: Number(pauses ?? 0),
    };
    return { ...this.seen };
  }
}
