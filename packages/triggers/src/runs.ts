import { ConnectorError, excerpt, type LogSink } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import { RunNotQueuedError } from './errors.js';
import type { AcceptedDelivery, EventStore } from './event-store.js';
import { later } from './later.js';
import { recordsSaid, type StartRun } from './run-start.js';

/**
 * The runs of accepted deliveries in flight: each started once its delivery is kept, its end
 * logged and its pending mark removed (a failed run ended too: a person reads why, nothing
 * retries it behind their back). A run the queue could not take stays pending, and is tried again
 * every `RETRY_NOT_QUEUED_MS` of the receiver's clock: the oldest such run first, and once it is
 * queued, every other pending one. Runs left pending by a crash start again when the receiver
 * listens; `drain` waits for those in flight, or aborts them when asked.
 */

/** How long a run the queue could not take waits before it is tried again (ms of the receiver's clock). */
export const RETRY_NOT_QUEUED_MS = 30_000;

export interface RunTracker {
  /** Starts the delivery's run unless it is running already; whether it started one. */
  start(delivery: AcceptedDelivery, trigger: TriggerSettings): boolean;
  /** Starts the pending runs of deliveries accepted before a restart, of triggers that still run something. */
  resume(triggers: ReadonlyMap<string, TriggerSettings>): Promise<number>;
  drain(options?: { abort?: boolean }): Promise<void>;
}

export function runTracker(startRun: StartRun, events: EventStore, clock: Clock, log: LogSink): RunTracker {
  // By delivery: a delivery accepted after listen may still be pending when the resume reads them.
  const inFlight = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  // Deliveries whose run could not be queued: they stay pending.
  const notQueued = new Set<string>();
  // Runs the queue could not take so far, and the triggers served (from `resume`).
  let refusals = 0;
  let served: ReadonlyMap<string, TriggerSettings> = new Map();
  let draining = false;
  const say = (level: 'info' | 'error', message: string, fields: Record<string, unknown>) =>
    log({ level, message, time: new Date(clock.now()).toISOString(), ...fields });
  const start = (delivery: AcceptedDelivery, trigger: TriggerSettings) => {
    const { executionId, deliveryId, triggerId, eventId, records } = delivery;
    if (draining || !trigger.run || executionId === null || inFlight.has(deliveryId)) return false;
    const fields = { executionId, deliveryId, triggerId };
    const running = startRun({
      executionId,
      deliveryId,
      triggerId,
      eventId,
      environment: trigger.environment,
      run: trigger.run,
      records: records as Record<string, unknown>[],
      signal: stopping.signal,
    })
      .then(
        (end) =>
          say(
            'info',
            `run ${executionId} of trigger ${triggerId} ${end.queued ? 'queued' : 'succeeded'}: ${recordsSaid(end.records)}`,
            fields,
          ),
        (error: unknown) => {
          if (error instanceof RunNotQueuedError) {
            notQueued.add(deliveryId);
            refusals += 1;
            retry.ask();
            return say('error', error.message, { ...fields, code: error.code });
          }
          if (stopping.signal.aborted)
            return say(
              'info',
              `run ${executionId} of trigger ${triggerId} stopped with the receiver: it starts again with the next listen on this state folder`,
              fields,
            );
          const code = error instanceof ConnectorError ? error.code : 'internal_error';
          const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
          say('error', `run ${executionId} of trigger ${triggerId} failed (${code}): ${message}`, { ...fields, code });
        },
      )
      // A run stopped by `drain({ abort })`, or not queued, stays pending: it starts again with the next listen.
      .then(() => (stopping.signal.aborted || notQueued.delete(deliveryId) ? undefined : events.runEnded(deliveryId)))
      .catch((error: unknown) => say('error', `run ${executionId}: ${String(error)}`, fields))
      .finally(() => inFlight.delete(deliveryId));
    inFlight.set(deliveryId, running);
    return true;
  };
  const resume = async (triggers: ReadonlyMap<string, TriggerSettings>) => {
    served = triggers;
    let started = 0;
    for (const delivery of await events.pending()) {
      const trigger = triggers.get(delivery.triggerId);
      if (trigger?.run && start(delivery, trigger)) started += 1;
    }
    return started;
  };
  // The oldest run not queued goes first: only once the queue took it do the others follow.
  const retryNotQueued = async () => {
    const oldest = (await events.pending()).find(
      (delivery) => served.get(delivery.triggerId)?.run && !inFlight.has(delivery.deliveryId),
    );
    if (!oldest) return;
    const before = refusals;
    start(oldest, served.get(oldest.triggerId)!);
    await inFlight.get(oldest.deliveryId);
    if (refusals === before) await resume(served);
  };
  const retry = later(clock, RETRY_NOT_QUEUED_MS, () =>
    retryNotQueued().catch((error: unknown) => {
      say('error', `runs not queued: ${excerpt(String(error), 1000)}`, {});
      retry.ask();
    }),
  );
  return {
    start,
    resume,
    async drain(options = {}) {
      draining = true;
      if (options.abort) stopping.abort();
      await retry.stop();
      while (inFlight.size > 0) await Promise.all(inFlight.values());
    },
  };
}
