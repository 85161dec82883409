import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError, type LogSink } from '@plugboard/sdk';
import { type Clock, stderrSink, systemClock } from '@plugboard/sdk/host';
import { send } from './answer.js';
import { checkedConfig, type TriggerConfig, type TriggerSettings } from './config.js';
import { type DeliveryContext, receiveDelivery, type ServedTrigger } from './delivery.js';
import { ReceiverStateError } from './errors.js';
import type { StartPoll } from './poll-start.js';
import type { PollTriggerState } from './poll-state.js';
import { checkQueueOptions, type ReceiverQueueOptions } from './queue-options.js';
import { deliveryRate } from './rate.js';
import { openState, type ReceiverState } from './receiver-state.js';
import { type Retention, retention } from './retention.js';
import type { StartRun } from './run-start.js';
import { type RunTracker, runTracker } from './runs.js';
import { resolveSecrets } from './secrets.js';

/**
 * The receiver, composed here and only here: the configuration checked once (secrets read from
 * the environment), a rate window per trigger, the receipts and accepted deliveries (a state
 * folder, or the fleet's PostgreSQL in queued mode), the runs, the polls, and a node:http server
 * bounded against slow and large requests.
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
  /** Where the ends of runs and polls are said; default stderr. */
  log?: LogSink;
}

export interface TriggerAddress {
  triggerId: string;
  status: string;
  environment: 'sandbox' | 'production';
  /** Where senders post its deliveries. */
  url: string;
}

export interface Receiver {
  /** Listens (port 0: a free one; host default 127.0.0.1), starts the runs a restart left pending; gives the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** The base URL once listening. */
  readonly url: string;
  /** Each trigger with the full URL of its deliveries, once listening. */
  addresses(): TriggerAddress[];
  /** Each poll trigger's state as it is now (once listening: read from the state folder then; queued, as registered then). */
  polls(): PollTriggerState[];
  /** Resolves once no poll runs and every poll's state is on disk. */
  pollsSettled(): Promise<void>;
  /**
   * Stops taking requests and polling, waits for the runs and polls in flight (or aborts them:
   * a run starts again with the next listen, a poll falls due at its kept `nextCheckAt`).
   */
  close(options?: { abortRuns?: boolean }): Promise<void>;
}

function servedTriggers(triggers: readonly TriggerSettings[], env: ReceiverOptions['env'], clock: Clock) {
  const secrets = resolveSecrets(triggers, env ?? process.env);
  return new Map<string, ServedTrigger>(
    triggers.map((settings) => [
      settings.publicId,
      {
        settings,
        secrets: secrets.get(settings.triggerId)!,
        rate: deliveryRate(settings.maxDeliveriesPerMinute, clock),
      },
    ]),
  );
}

function boundedServer(handle: Parameters<typeof createServer>[1]): Server {
  const server = createServer(
    {
      headersTimeout: SERVER_LIMITS.headersTimeoutMs,
      requestTimeout: SERVER_LIMITS.requestTimeoutMs,
      maxHeaderSize: SERVER_LIMITS.maxHeaderBytes,
      keepAliveTimeout: SERVER_LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    handle,
  );
  return server;
}

/** The receiver's state, the runs and retention once it listens; nothing is opened before. */
interface Listening {
  state: ReceiverState;
  runs: RunTracker | undefined;
  kept: Retention;
}

async function openListening(options: ReceiverOptions, config: TriggerConfig, clock: Clock, log: LogSink) {
  const state = await openState({ ...options, clock, log }, config.polls);
  try {
    const kept = retention(config.triggers, state.events, clock);
    await kept.prune().catch((error: unknown) => {
      if (options.queue) throw error;
      throw new ReceiverStateError(options.stateDir!, (error as NodeJS.ErrnoException).code ?? String(error), error);
    });
    const runs = state.startRun ? runTracker(state.startRun, state.events, clock, log) : undefined;
    return { state, runs, kept };
  } catch (error) {
    await state.close();
    throw error;
  }
}

/** Refuses options that cannot work together, naming the field, before anything is opened. */
function checkOptions(options: ReceiverOptions): void {
  if (options.queue) checkQueueOptions(options.queue, options);
  else if (typeof options.stateDir !== 'string' || options.stateDir === '')
    throw new InvalidInputError('receiver', [{ path: 'stateDir', message: 'is required without queue' }]);
}

/** Checks the configuration and reads the secrets (a `TriggerConfigError` naming every problem); listens on `listen`. */
export function createReceiver(options: ReceiverOptions): Receiver {
  const config = checkedConfig(options.config);
  checkOptions(options);
  const { triggers } = config;
  const clock = options.clock ?? systemClock;
  const served = servedTriggers(triggers, options.env, clock);
  const log = options.log ?? stderrSink;
  let open: Listening | undefined;
  const say = (message: string) => log({ level: 'error', message, time: new Date(clock.now()).toISOString() });
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
  let delivering: DeliveryContext | undefined;
  const handling = new Set<Promise<void>>();
  const server = boundedServer((request, response) => {
    const handled = receiveDelivery(delivering!, request, response)
      .catch((error: unknown) => {
        say(`delivery: ${String(error)}`);
        if (!response.headersSent)
          send(request, response, { status: 500, result: { accepted: false, code: 'internal_error' } });
        else response.destroy();
      })
      .finally(() => handling.delete(handled));
    handling.add(handled);
  });
  let url = '';
  return {
    async listen(port = 0, host = '127.0.0.1') {
      const current = await openListening(options, config, clock, log);
      open = current;
      delivering = context(current);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
      await current.runs?.resume(new Map(triggers.map((trigger) => [trigger.triggerId, trigger])));
      await current.state.polls.start();
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
        url: `${url}/api/connect/triggers/${trigger.publicId}`,
      })),
    polls: () => open?.state.polls.states() ?? [],
    pollsSettled: async () => open?.state.polls.settled(),
    async close(closing = {}) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(handling);
      if (!open) return;
      const abort = closing.abortRuns === true;
      await Promise.all([open.runs?.drain({ abort }), open.state.polls.stop({ abort })]);
      await open.state.close();
    },
  };
}
