import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectorError, InvalidInputError, type LogSink } from '@plugboard/sdk';
import { type Clock, stderrSink, systemClock } from '@plugboard/sdk/host';
import type { MetricsServer } from '@plugboard/worker';
import { checkedConfig, DELIVERY_PATH, TRIGGER_LIMITS, type TriggerConfig, type TriggerSettings } from './config.js';
import { type DeliveryContext, invitesBody } from './delivery.js';
import { ReceiverStateError } from './errors.js';
import { healthCheck } from './health.js';
import type { ReceiverMetrics } from './metrics.js';
import type { StartPoll } from './poll-start.js';
import type { PollTriggerState } from './poll-state.js';
import { checkQueueOptions, type ReceiverQueueOptions } from './queue-options.js';
import { type Answering, answerRequest } from './requests.js';
import { openState, type ReceiverState } from './receiver-state.js';
import { type Retention, retention } from './retention.js';
import type { ExecutorHost, StartRun } from './run-start.js';
import { type RunTracker, runTracker } from './runs.js';
import { servedTriggers } from './served.js';
import { subscriptionStore } from './subscription-store.js';
import { webhookHost } from './webhook-host.js';
import { NO_WEBHOOKS, webhookLifecycle } from './webhook-lifecycle.js';

/**
 * The receiver, composed here and only here: the configuration checked once (secrets read from
 * the environment), a rate window per trigger, the receipts and accepted deliveries (a state
 * folder, or the fleet's PostgreSQL in queued mode), the runs, the polls, and a node:http server
 * bounded against slow and large requests that serves the deliveries and `GET /health`, and the
 * provider webhooks' subscriptions (kept in the state folder).
 */

/** How long a sender may take over its headers, and over its whole request: slow senders cannot hold sockets. */
export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  /** The most bytes of request line and headers: more is answered 431 by node:http. */
  maxHeaderBytes: 16 * 1024,
  keepAliveTimeoutMs: 5_000,
} as const;

export interface ReceiverOptions {
  /**
   * `{ "triggers": [ Trigger ] }`: as read from the configuration file (checked here), or as
   * `parseTriggerConfig` gave it (not checked again).
   */
  config: unknown;
  /** Where receipts, accepted deliveries, their inputs and poll states are kept. One receiver per folder. Required without `queue`. */
  stateDir?: string;
  /**
   * Queued mode: receipts and dedupe in the fleet's PostgreSQL (any number of receivers behind a
   * balancer answer a repeated event id alike), the runs queued on its run queue, the polls its
   * schedules. Without it, the embedded default: the state folder, `startRun`, `startPoll`.
   */
  queue?: ReceiverQueueOptions;
  /** Where the secrets' variables are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The time of receipts, rate windows, tolerance and retention; default the system clock. */
  clock?: Clock;
  /** Starts the run of an accepted delivery of a trigger with `run`; without it deliveries are only kept. */
  startRun?: StartRun;
  /** Reads each poll of a poll trigger (`executorPollStarter`); without it the polls are `paused`. */
  startPoll?: StartPoll;
  /**
   * The host the triggers' provider `webhook`s are subscribed, renewed and unsubscribed with (its
   * connectors declare them; its credential resolver, stores and transport serve the calls, as
   * `executorRunStarter`'s do). Required when a trigger names a webhook, or when the state
   * folder keeps a subscription to end.
   */
  webhooks?: ExecutorHost;
  /** Where the ends of runs and polls, and the webhooks' calls, are said; default stderr. */
  log?: LogSink;
  /**
   * Keeps receipts this many days (1 to 3650) and at most a day more, then removes them, when the
   * receiver listens and hourly after that, as accepted deliveries are: in the state folder a day's
   * file at a time, in queued mode the rows. Without it they are kept until removed.
   */
  receiptRetentionDays?: number;
  /** Shorter or longer bounds on slow senders than `SERVER_LIMITS` (behind a proxy that has its own, say). */
  serverLimits?: Partial<ServerLimits>;
  /**
   * Serves Prometheus' `GET /metrics` on this port of its own (0: any free one; `metricsUrl` says
   * which): the deliveries answered by trigger and outcome, the runs and polls ended and how.
   */
  metricsPort?: number;
  /** The address the metrics are served on; default the one the receiver listens on. */
  metricsHost?: string;
}

export type ServerLimits = { -readonly [Name in keyof typeof SERVER_LIMITS]: number };

export interface TriggerAddress {
  triggerId: string;
  status: string;
  environment: 'sandbox' | 'production';
  /** Where senders post its deliveries. */
  url: string;
}

export interface Receiver {
  /**
   * Listens (port 0: a free one; host default 127.0.0.1), keeps the provider webhooks' subscriptions
   * (ends those that left the configuration, subscribes the missing ones), starts the runs a
   * restart left pending; gives the base URL.
   */
  listen(port?: number, host?: string): Promise<string>;
  /** The base URL once listening. */
  readonly url: string;
  /** Where Prometheus scrapes this receiver, once listening with `metricsPort`. */
  readonly metricsUrl: string | undefined;
  /** Each trigger with the full URL of its deliveries, once listening. */
  addresses(): TriggerAddress[];
  /** Each poll trigger's state as it is now (once listening: read from the state folder then; queued, as registered then). */
  polls(): PollTriggerState[];
  /** Resolves once no poll runs and every poll's state is on disk. */
  pollsSettled(): Promise<void>;
  /** Resolves once no webhook subscribe, renew or unsubscribe is in flight. */
  webhooksSettled(): Promise<void>;
  /**
   * Stops taking requests and polling, waits for a pruning under way and for the runs and polls
   * in flight (or aborts them: a run starts again with the next listen, a poll falls due at its
   * kept `nextCheckAt`).
   */
  close(options?: { abortRuns?: boolean }): Promise<void>;
}

/** Where a provider posts a trigger's deliveries: its configured URL when absolute, else under the listening one. */
function deliveryUrl(settings: TriggerSettings, base: string): string {
  return /^https?:\/\//.test(settings.url) ? settings.url : `${base}${DELIVERY_PATH}${settings.publicId}`;
}

/** The limits given over the defaults; each a whole number of 1 or more, the request's timeout no shorter than its headers'. */
function serverLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...SERVER_LIMITS, ...given };
  const issues = Object.entries(limits)
    .filter(([, value]) => !Number.isInteger(value) || value < 1)
    .map(([name]) => ({ path: `serverLimits.${name}`, message: 'must be a whole number of 1 or more' }));
  if (issues.length === 0 && limits.requestTimeoutMs < limits.headersTimeoutMs)
    issues.push({ path: 'serverLimits.requestTimeoutMs', message: 'must be at least headersTimeoutMs' });
  if (issues.length > 0) throw new InvalidInputError('createReceiver', issues);
  return limits;
}

/**
 * The requests' (and sockets') buffer: a request paused at `maxBodyBytes` stops its socket's
 * reads once a kilobyte waits, instead of Node's default 64 KB (one more socket read of a body
 * that will never be read, held until the garbage collector runs).
 */
const READ_BUFFER_BYTES = 1024;

/** The server of the deliveries; `invites` says whether a sender that asks first is asked for its body. */
function boundedServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  limits: ServerLimits,
  invites: (request: IncomingMessage) => boolean,
): Server {
  const server = createServer(
    {
      highWaterMark: READ_BUFFER_BYTES,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // The timeouts are checked this often: a tenth of the shortest, at most a second.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 10)),
    },
    handle,
  );
  // Asked first (`Expect: 100-continue`), a body is invited only where it would be read.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (invites(request)) response.writeContinue();
    handle(request, response);
  });
  return server;
}

/** The receiver's state, the runs and retention once it listens; nothing is opened before. */
interface Listening {
  state: ReceiverState;
  runs: RunTracker | undefined;
  kept: Retention;
}

async function openListening(
  options: ReceiverOptions,
  config: TriggerConfig,
  clock: Clock,
  log: LogSink,
  metrics: ReceiverMetrics | undefined,
) {
  const startPoll = options.startPoll && metrics ? metrics.countingPolls(options.startPoll) : options.startPoll;
  const state = await openState({ ...options, startPoll, clock, log }, config.polls);
  try {
    const kept = retention(
      config.triggers,
      { events: state.events, receipts: state.receipts, receiptRetentionDays: options.receiptRetentionDays },
      clock,
    );
    await kept.prune().catch((error: unknown) => {
      if (options.queue) throw error;
      throw new ReceiverStateError(options.stateDir!, (error as NodeJS.ErrnoException).code ?? String(error), error);
    });
    const startRun = state.startRun && metrics ? metrics.countingRuns(state.startRun) : state.startRun;
    const runs = startRun ? runTracker(startRun, state.events, clock, log) : undefined;
    return { state, runs, kept };
  } catch (error) {
    await state.close();
    throw error;
  }
}

/** Refuses options that cannot work together, naming the field, before anything is opened. */
function checkOptions(options: ReceiverOptions, config: TriggerConfig): void {
  if (options.queue) checkQueueOptions(options.queue, options);
  else if (typeof options.stateDir !== 'string' || options.stateDir === '')
    throw new InvalidInputError('receiver', [{ path: 'stateDir', message: 'is required without queue' }]);
  const { metricsPort, receiptRetentionDays: days } = options;
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= TRIGGER_LIMITS.inputRetentionDays))
    throw new InvalidInputError('receiver', [
      {
        path: 'receiptRetentionDays',
        message: `must be a whole number from 1 to ${TRIGGER_LIMITS.inputRetentionDays}`,
      },
    ]);
  if (metricsPort !== undefined && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65_535))
    throw new InvalidInputError('receiver', [
      { path: 'metricsPort', message: 'must be a whole number from 0 to 65535' },
    ]);
  // A webhook's subscription (its provider's signing secret with it) is kept in the state folder.
  if (config.triggers.some((trigger) => trigger.webhook) && !options.stateDir)
    throw new InvalidInputError('receiver', [
      { path: 'stateDir', message: "is required for the triggers' provider webhooks" },
    ]);
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A predecessor secret whose window has ended verifies nothing: said once at listen, not at each refusal. */
function sayEndedRotations(triggers: readonly TriggerSettings[], clock: Clock, log: LogSink): void {
  for (const { triggerId, previousSecretEnv, previousSecretValidUntil } of triggers) {
    if (previousSecretEnv === undefined || previousSecretValidUntil === null) continue;
    if (Date.parse(previousSecretValidUntil) > clock.now()) continue;
    log({
      level: 'warn',
      message: `trigger ${triggerId}: the previous secret (${previousSecretEnv}) was valid until ${previousSecretValidUntil}; deliveries signed with it are refused`,
      time: new Date(clock.now()).toISOString(),
      triggerId,
    });
  }
}

/** Checks the configuration and reads the secrets (a `TriggerConfigError` naming every problem); listens on `listen`. */
export function createReceiver(options: ReceiverOptions): Receiver {
  const config = checkedConfig(options.config);
  checkOptions(options, config);
  const limits = serverLimits(options.serverLimits);
  const { triggers } = config;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? stderrSink;
  const host = webhookHost(triggers, options.webhooks);
  // Without a state folder no trigger names a webhook (checked above).
  const subscriptions = options.stateDir
    ? webhookLifecycle({ triggers, host, store: subscriptionStore(options.stateDir), clock, log })
    : NO_WEBHOOKS;
  const served = servedTriggers(triggers, {
    env: options.env ?? process.env,
    clock,
    log,
    host,
    lifecycle: subscriptions,
  });
  let open: Listening | undefined;
  const say = (message: string, error?: unknown) =>
    log({
      level: 'error',
      message,
      time: new Date(clock.now()).toISOString(),
      ...(error instanceof ConnectorError ? { code: error.code } : {}),
    });
  const context = (current: Listening): DeliveryContext => ({
    triggers: served,
    clock,
    events: current.state.events,
    receipts: current.state.receipts,
    startsRuns: (trigger) => current.runs !== undefined && trigger.run !== undefined,
    accepted(delivery, trigger) {
      current.runs?.start(delivery, trigger);
      current.kept.maybePrune().catch((error: unknown) => say(`pruning: ${String(error)}`));
    },
  });
  let answering: Answering | undefined;
  const handling = new Set<Promise<void>>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const handled = answerRequest(answering!, request, response)
      .catch((error: unknown) => {
        say(`answering: ${String(error)}`, error);
        response.destroy();
      })
      .finally(() => handling.delete(handled));
    handling.add(handled);
  };
  const server = boundedServer(handle, limits, (request) => invitesBody(answering!.delivering, request));
  let url = '';
  let metricsServer: MetricsServer | undefined;
  return {
    async listen(port = 0, host = '127.0.0.1') {
      // Loaded only when asked for: prom-client and the metrics server with it.
      const observing = options.metricsPort === undefined ? undefined : await import('./metrics.js');
      const metrics = observing?.receiverMetrics();
      const current = await openListening(options, config, clock, log, metrics);
      answering = { delivering: context(current), health: healthCheck(current.state.probe, clock), metrics, say };
      try {
        if (observing && metrics)
          metricsServer = await observing.serveMetrics(
            metrics.registry,
            options.metricsPort!,
            options.metricsHost ?? host,
          );
        await listenOn(server, port, host);
      } catch (error) {
        // A port in use, say: nothing opened stays open.
        await metricsServer?.close();
        metricsServer = undefined;
        await current.state.close();
        throw error;
      }
      open = current;
      const address = server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
      sayEndedRotations(triggers, clock, log);
      await subscriptions.start((settings) => deliveryUrl(settings, url));
      await current.runs?.resume(new Map(triggers.map((trigger) => [trigger.triggerId, trigger])));
      await current.state.polls.start();
      return url;
    },
    get url() {
      return url;
    },
    get metricsUrl() {
      return metricsServer?.url;
    },
    addresses: () =>
      triggers.map((trigger) => ({
        triggerId: trigger.triggerId,
        status: trigger.status,
        environment: trigger.environment,
        url: `${url}${DELIVERY_PATH}${trigger.publicId}`,
      })),
    polls: () => open?.state.polls.states() ?? [],
    pollsSettled: async () => open?.state.polls.settled(),
    webhooksSettled: () => subscriptions.settled(),
    async close(closing = {}) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(handling);
      await metricsServer?.close();
      if (!open) return;
      const abort = closing.abortRuns === true;
      await Promise.all([
        open.runs?.drain({ abort }),
        open.state.polls.stop({ abort }),
        subscriptions.stop(),
        open.kept.settled(),
      ]);
      await open.state.close();
    },
  };
}
