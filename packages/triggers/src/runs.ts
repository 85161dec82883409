import { ConnectorError, excerpt, type LogSink } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import { RunNotQueuedError } from './errors.js';
import type { AcceptedDelivery, EventStore } from './event-store.js';
import { recordsSaid, type StartRun } from './run-start.js';

/**
 * The runs of accepted deliveries in flight: each started once its delivery is kept, its end
 * logged and its pending mark removed (a failed run ended too: a person reads why, nothing
 * retries it behind their back; a run the queue could not take stays pending). Runs left pending by a crash start again when the receiver
 * listens; `drain` waits for those in flight, or aborts them when asked.
 */

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
  const say = (level: 'info' | 'error', message: string, fields: Record<string, unknown>) =>
    log({ level, message, time: new Date(clock.now()).toISOString(), ...fields });
  const start = (delivery: AcceptedDelivery, trigger: TriggerSettings) => {
    const { executionId, deliveryId, triggerId, eventId, records } = delivery;
    if (!trigger.run || executionId === null || inFlight.has(deliveryId)) return false;
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
  return {
    start,
    async resume(triggers) {
      let started = 0;
      for (const delivery of await events.pending()) {
        const trigger = triggers.get(delivery.triggerId);
        if (trigger?.run && start(delivery, trigger)) started += 1;
      }
      return started;
    },
    async drain(options = {}) {
      if (options.abort) stopping.abort();
      while (inFlight.size > 0) await Promise.all(inFlight.values());
    },
  };
}
