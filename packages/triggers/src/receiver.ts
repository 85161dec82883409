import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError, type LogSink } from '@plugboard/sdk';
import { type Clock, stderrSink, systemClock } from '@plugboard/sdk/host';
import { send } from './answer.js';
import { checkedConfig, DELIVERY_PATH, type TriggerSettings } from './config.js';
import { type DeliveryContext, receiveDelivery } from './delivery.js';
import { ReceiverStateError } from './errors.js';
import { eventLog } from './event-log.js';
import type { StartPoll } from './poll-start.js';
import type { PollTriggerState } from './poll-state.js';
import { pollScheduler } from './polls.js';
import { receiptLog } from './receipts.js';
import { retention } from './retention.js';
import type { ExecutorHost, StartRun } from './run-start.js';
import { runTracker } from './runs.js';
import { servedTriggers } from './served.js';
import { subscriptionStore } from './subscription-store.js';
import { webhookHost } from './webhook-host.js';
import { webhookLifecycle } from './webhook-lifecycle.js';

/**
 * The receiver, composed here and only here: the configuration checked once (secrets read from
 * the environment), a rate window per trigger, the state folder's receipts and accepted
 * deliveries, the runs, the polls' timer, the provider webhooks' subscriptions, and a node:http
 * server bounded against slow and large requests.
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
  /** Where receipts, accepted deliveries and their inputs are kept. One receiver per folder. */
  stateDir: string;
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
  /** Shorter or longer bounds on slow senders than `SERVER_LIMITS` (behind a proxy that has its own, say). */
  serverLimits?: Partial<ServerLimits>;
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
  /** Each trigger with the full URL of its deliveries, once listening. */
  addresses(): TriggerAddress[];
  /** Each poll trigger's state as it is now (once listening: read from the state folder then). */
  polls(): PollTriggerState[];
  /** Resolves once no poll runs and every poll's state is on disk. */
  pollsSettled(): Promise<void>;
  /** Resolves once no webhook subscribe, renew or unsubscribe is in flight. */
  webhooksSettled(): Promise<void>;
  /**
   * Stops taking requests and polling, waits for the runs and polls in flight (or aborts them:
   * a run starts again with the next listen, a poll falls due at its kept `nextCheckAt`).
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

function boundedServer(handle: Parameters<typeof createServer>[1], limits: ServerLimits): Server {
  return createServer(
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
}

/** Checks the configuration and reads the secrets (a `TriggerConfigError` naming every problem); listens on `listen`. */
export function createReceiver(options: ReceiverOptions): Receiver {
  const { triggers, polls } = checkedConfig(options.config);
  const limits = serverLimits(options.serverLimits);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? stderrSink;
  const host = webhookHost(triggers, options.webhooks);
  const subscriptions = webhookLifecycle({ triggers, host, store: subscriptionStore(options.stateDir), clock, log });
  const served = servedTriggers(triggers, { env: options.env ?? process.env, clock, host, lifecycle: subscriptions });
  const events = eventLog(options.stateDir);
  const receipts = receiptLog(options.stateDir);
  const kept = retention(triggers, events, clock);
  const startRun = options.startRun;
  const runs = startRun ? runTracker(startRun, events, clock, log) : undefined;
  const polling = pollScheduler(polls, {
    stateDir: options.stateDir,
    clock,
    log,
    ...(options.startPoll ? { startPoll: options.startPoll } : {}),
  });
  const context: DeliveryContext = {
    triggers: served,
    clock,
    events,
    receipts,
    startsRuns: (trigger) => runs !== undefined && trigger.run !== undefined,
    accepted(delivery, trigger) {
      runs?.start(delivery, trigger);
      kept.maybePrune().catch((error: unknown) => say(`pruning: ${String(error)}`));
    },
  };
  const handling = new Set<Promise<void>>();
  const say = (message: string) => log({ level: 'error', message, time: new Date(clock.now()).toISOString() });
  const server = boundedServer((request, response) => {
    const handled = receiveDelivery(context, request, response)
      .catch((error: unknown) => {
        say(`delivery: ${String(error)}`);
        if (!response.headersSent)
          send(request, response, { status: 500, result: { accepted: false, code: 'internal_error' } });
        else response.destroy();
      })
      .finally(() => handling.delete(handled));
    handling.add(handled);
  }, limits);
  let url = '';
  return {
    async listen(port = 0, host = '127.0.0.1') {
      try {
        await mkdir(options.stateDir, { recursive: true, mode: 0o700 });
        await kept.prune();
      } catch (error) {
        throw new ReceiverStateError(options.stateDir, (error as NodeJS.ErrnoException).code ?? String(error), error);
      }
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
      await subscriptions.start((settings) => deliveryUrl(settings, url));
      await runs?.resume(new Map(triggers.map((trigger) => [trigger.triggerId, trigger])));
      await polling.start();
      return url;
    },
    get url() {
      return url;
    },
    addresses: () =>
      triggers.map((trigger) => ({
        triggerId: trigger.triggerId,
        status: trigger.status,
        environment: trigger.environment,
        url: `${url}${DELIVERY_PATH}${trigger.publicId}`,
      })),
    polls: () => polling.states(),
    pollsSettled: () => polling.settled(),
    webhooksSettled: () => subscriptions.settled(),
    async close(closing = {}) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(handling);
      const abort = closing.abortRuns === true;
      await Promise.all([runs?.drain({ abort }), polling.stop({ abort }), subscriptions.stop()]);
      await Promise.all([receipts.close(), events.close()]);
    },
  };
}
