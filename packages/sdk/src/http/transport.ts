import type { Agent as NodeAgent } from 'node:http';
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../clock.js';
import { type CredentialOptions, checkCredentialOptions } from '../auth/options.js';
import type { Environment } from '../definition/environment.js';
import { BudgetRegistry } from './budget.js';
import { HeldBack, type WriteGate } from './budget-rules.js';
import { NetworkPolicy, type NetworkOptions } from './network-policy.js';
import { RedisConnection } from '../redis/connection.js';
import { RedisBudgets, type RedisBudgetsOption } from './redis-budget-state.js';
import type { HttpStage } from './stages/stage.js';

/**
 * What the runs of one process share: the connection pool and the rate budgets, as an author's
 * tests and a host hold it (`RunOptions.transport`, a host's executor). Requests go straight to
 * an undici Agent (keep-alive pools and connect, headers and body timeouts), about twice the
 * speed of fetch on the same pool; with `via: 'fetch'` they go through Node's built-in fetch on
 * that Agent instead, which is what fetch interceptors such as nock see (the testing kit
 * records and replays fixtures that way); with `via: 'http'` through Node's own http and https
 * modules, which start quickest (a command that makes a few requests).
 *
 * The budgets are this transport's own unless `redis` is given to `createHostTransport` (kept in
 * memory, at no cost while they do not bind): then every transport, in any
 * process on any machine, that uses the same Redis keeps one budget per
 * (connector, connection, budget name) together: the sliding window, the
 * pause, the probe and the concurrency (Lua scripts of the SDK's own on that Redis).
 *
 * Every connection goes through the network policy (`network`): the address a request
 * connects to, after name resolution and at every redirect hop, must be one the run's
 * environment may reach. Each environment has its own pool, so a connection opened for a
 * sandbox run (to a loopback simulator, say) never carries a production run's request.
 *
 * A handle: the pools, the policy and the budgets stay inside the SDK. Only a transport that
 * `createTransport` or `createHostTransport` made can be used.
 */
export interface Transport {
  /** How requests are sent: straight to the pool, or through the built-in fetch, or Node's http modules. */
  readonly via: 'undici' | 'fetch' | 'http';
  /** Ends the pool, the budgets' timers and the Redis connections the transport opened; waiting requests fail. */
  close(): Promise<void>;
}

/** A transport's working parts, which the SDK's pipeline and token lifecycle read. */
export interface TransportParts extends Transport {
  /**
   * The pool of runs in `environment` (made on first use). A request that carries a write gate
   * (`WRITE_GATE` in its options) asks it when its connection is ready, before it is written.
   */
  agent(environment: Environment): Dispatcher;
  /** That pool as the built-in fetch takes it (made on first use), asking `open` before writing when given. */
  dispatcher(environment: Environment, open?: WriteGate): Dispatcher;
  /** Node's http or https agent of runs in `environment`, for `via: 'http'` (made on first use). */
  nodeAgent(environment: Environment, protocol: 'http:' | 'https:'): NodeAgent;
  /** The addresses runs may connect to. */
  readonly network: NetworkPolicy;
  budgets: BudgetRegistry;
  /** What every wait and timestamp of the pipeline reads: budgets, Retry-After, backoff. */
  readonly clock: Clock;
  /** The host's own stages, in every run's pipeline (see `pipeline.ts` for where). */
  readonly stages: readonly HttpStage[];
}

/** How `createTransport` makes a transport: how it sends, the pool's timeouts, the network policy. */
export interface TransportOptions {
  /**
   * `undici` (default): requests go to the pool directly. `fetch`: through the
   * built-in fetch on the pool, for fetch interceptors. `http`: Node's http and
   * https modules and their agents, never loading undici (the pool's timeouts
   * below do not apply; each request's own does).
   */
  via?: 'undici' | 'fetch' | 'http';
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * The network policy: `allow`, address ranges let through whatever their class
   * (`{ allow: ['10.0.0.0/8', '127.0.0.0/8'] }`), and `lookup`, a resolver used instead of
   * `dns.lookup`. Production runs refuse loopback, private, link-local, unique-local,
   * metadata and reserved addresses (and those carried in NAT64, 6to4, Teredo or IPv4-mapped
   * addresses); sandbox runs refuse the same except loopback. A range that is not one throws
   * a TypeError here.
   */
  network?: NetworkOptions;
}

/** What a host adds to a transport: Redis for shared budgets, the clock it waits on, stages of its own, and the OAuth2 token lifecycle. */
export interface HostTransportOptions extends TransportOptions {
  /**
   * Shares the rate budgets through Redis: a URL (`redis://127.0.0.1:6379`) or
   * `RedisBudgetOptions` (URL or ioredis client options or an ioredis client,
   * key prefix, probe and idle TTLs). Needs the package `ioredis` (an optional
   * peer dependency), loaded on the first request; nothing connects before.
   * Without it, budgets live in this process only.
   */
  redis?: RedisBudgetsOption;
  /**
   * The clock the budgets, Retry-After pauses and retry backoff wait on (default the system
   * clock); a test passes `manualClock()` and moves it by hand. Request timeouts stay on real
   * timers: they bound real I/O.
   */
  clock?: Clock;
  /**
   * The host's stages (tracing, caching ...), outermost first, in every run's pipeline: below
   * retry and classification, above the budget. A stage sees each attempt, before the credential
   * is added; an answer it gives without calling the next stage is classified like the provider's
   * and takes nothing from the budget.
   */
  stages?: readonly HttpStage[];
  /**
   * The OAuth2 token lifecycle: the host's credential store (where token sets are kept between
   * runs and shared by processes), the refresh margin, and the lock folder used without Redis.
   */
  credentials?: CredentialOptions;
}

/** The request option that carries a write gate to the pool's interceptor. */
export const WRITE_GATE = Symbol('plugboard.writeGate');

/** undici is loaded when a pool is first needed: a process that never sends does not pay for it. */
const load = createRequire(import.meta.url);

/**
 * A transport on the system clock, without stages of a host's or a credential store: an author's
 * tests make one to reach a local server (`createTransport({ network: { allow: ['127.0.0.0/8'] } })`).
 */
export function createTransport(options: TransportOptions = {}): Transport {
  return createHostTransport(options);
}

/** A transport with a host's Redis, clock, stages and OAuth2 token lifecycle (`createHostTransport({ redis, clock, stages, credentials })`). */
export function createHostTransport(options: HostTransportOptions = {}): Transport {
  const via = options.via ?? 'undici';
  checkCredentialOptions(options.credentials);
  const network = new NetworkPolicy(options.network);
  const agents = new Map<Environment, import('undici').Agent>();
  const gatedAgents = new Map<Environment, Dispatcher>();
  const dispatchers = new Map<Environment, Dispatcher>();
  const nodeAgents = new Map<string, NodeAgent>();
  const pool = (environment: Environment): import('undici').Agent => {
    let agent = agents.get(environment);
    if (!agent) {
      const { Agent: Pool } = load('undici') as typeof import('undici');
      agent = new Pool({
        // Every name the pool connects to is resolved through the policy's lookup; address literals are checked before sending.
        connect: { timeout: options.connectTimeoutMs ?? 10_000, lookup: network.lookup(environment) },
        headersTimeout: options.headersTimeoutMs ?? 60_000,
        bodyTimeout: options.bodyTimeoutMs ?? 60_000,
        keepAliveTimeout: 4_000,
      });
      agents.set(environment, agent);
    }
    return agent;
  };
  const gated = (environment: Environment): Dispatcher => {
    let agent = gatedAgents.get(environment);
    if (!agent) {
      agent = pool(environment).compose(writeGate());
      gatedAgents.set(environment, agent);
    }
    return agent;
  };
  const clock = options.clock ?? systemClock;
  const redis = options.redis === undefined ? undefined : new RedisConnection(options.redis, { clock });
  const budgets = new BudgetRegistry(redis && new RedisBudgets(options.redis!, { connection: redis }), clock);
  const transport: TransportParts = {
    via,
    agent: gated,
    dispatcher(environment, open) {
      let dispatcher = dispatchers.get(environment);
      if (!dispatcher) {
        // undici 8's Agent speaks a newer dispatcher interface than Node's built-in fetch accepts.
        dispatcher = new (load('undici') as typeof import('undici')).Dispatcher1Wrapper(gated(environment));
        dispatchers.set(environment, dispatcher);
      }
      if (!open) return dispatcher;
      // fetch makes its own request options: a dispatcher of this request adds the gate to them.
      const shared = dispatcher;
      return Object.assign(Object.create(shared) as Dispatcher, {
        dispatch: (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) =>
          shared.dispatch({ ...opts, [WRITE_GATE]: open } as Dispatcher.DispatchOptions, handler),
      });
    },
    nodeAgent(environment, protocol) {
      const key = `${environment} ${protocol}`;
      let agent = nodeAgents.get(key);
      if (!agent) {
        // getBuiltinModule, not import(): an ESM namespace of node:http reads every export, and one of them loads Node's fetch.
        const { Agent: Kind } =
          protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
        // As Node's global agent; idle keep-alive sockets are unreferenced: they do not hold the process open.
        agent = new Kind({ keepAlive: true, scheduling: 'lifo', timeout: 5_000, lookup: network.lookup(environment) });
        nodeAgents.set(key, agent);
      }
      return agent;
    },
    network,
    budgets,
    clock,
    stages: options.stages ?? [],
    async close() {
      await budgets.stop();
      await redis?.close();
      for (const agent of nodeAgents.values()) agent.destroy();
      await Promise.all([...agents.values()].map((agent) => agent.close()));
    },
  };
  sharedState.set(transport, { redis, credentials: options.credentials ?? {} });
  made.set(transport, transport);
  return transport;
}

/** The transports made here, by the handle their users hold. */
const made = new WeakMap<Transport, TransportParts>();

/**
 * The working parts of `transport`, or of the process-wide transport when none is given. One that
 * `createTransport` did not make is a TypeError: a run fails before anything is sent.
 */
export function partsOf(transport: Transport | undefined): TransportParts {
  if (transport === undefined) return sharedTransport();
  const parts = made.get(transport);
  if (!parts) throw new TypeError('transport: give one that createTransport or createHostTransport made');
  return parts;
}

/** What a transport shares with the SDK's own modules only (the token lifecycle), not with its users. */
interface SharedState {
  /** The Redis every process of a deployment shares (`redis`), or undefined. */
  redis: RedisConnection | undefined;
  /** How OAuth2 token sets are kept and refreshed (`credentials`). */
  credentials: CredentialOptions;
}

const sharedState = new WeakMap<Transport, SharedState>();

/** The shared state of a transport made by `createTransport` (one made otherwise has none). */
export function sharedStateOf(transport: Transport): SharedState {
  return sharedState.get(transport) ?? { redis: undefined, credentials: {} };
}

/**
 * The pool's interceptor that asks a request's write gate when its connection is ready
 * (`onRequestStart` comes just before the request is written) and aborts it with `HeldBack`
 * when the gate says no: a request let in before its budget paused never reaches the provider.
 */
function writeGate(): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const open = (opts as { [WRITE_GATE]?: WriteGate })[WRITE_GATE];
    return dispatch(opts, open ? new GatedHandler(handler, open) : handler);
  };
}

/** The request's own handler, asked the gate first when the request is about to be written. */
class GatedHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly open: WriteGate,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
    if (!controller.aborted && !this.open()) controller.abort(new HeldBack());
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.handler.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.handler.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.handler.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.handler.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.handler.onResponseError?.(...args);
  }
}

let shared: TransportParts | undefined;

/** The process-wide transport used when a run names none. */
function sharedTransport(): TransportParts {
  shared ??= partsOf(createTransport());
  return shared;
}
