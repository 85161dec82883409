import { Counter, Registry } from 'prom-client';
import type { Answer } from './answer.js';
import { RunNotQueuedError } from './errors.js';
import type { StartRun } from './run-start.js';

export { serveMetrics } from '@plugboard/worker';

/**
 * The receiver's Prometheus metrics, in a registry of its own (never prom-client's global one):
 * each answer to a delivery by its trigger and outcome, and each end of a delivery's run. Every
 * label value is a triggerId of the configuration or comes from a fixed list (a `code`, a run's
 * end): never anything a sender sent. Loaded only when the metrics are asked for.
 */

/** How a delivery's run ended: `queued` on the run queue; `not_queued` and `stopped` stay pending. */
export type RunEndLabel = 'succeeded' | 'queued' | 'failed' | 'not_queued' | 'stopped';

export interface ReceiverMetrics {
  readonly registry: Registry;
  /** A request answered: its trigger's id (empty when it named none this receiver serves). */
  answered(triggerId: string, answer: Answer): void;
  /** `startRun`, each end of its runs counted. */
  counting(startRun: StartRun): StartRun;
}

export function receiverMetrics(): ReceiverMetrics {
  const registry = new Registry();
  const deliveries = new Counter({
    name: 'plugboard_trigger_deliveries_total',
    help: "Requests answered, by trigger (empty: none this receiver serves) and outcome: accepted, or the answer's code",
    labelNames: ['trigger', 'outcome'],
    registers: [registry],
  });
  const runs = new Counter({
    name: 'plugboard_trigger_runs_total',
    help: 'Runs of accepted deliveries that ended, by trigger and how (not_queued and stopped stay pending)',
    labelNames: ['trigger', 'end'],
    registers: [registry],
  });
  const ended = (trigger: string, end: RunEndLabel) => runs.inc({ trigger, end });
  return {
    registry,
    answered(trigger, answer) {
      deliveries.inc({ trigger, outcome: answer.result.code ?? 'accepted' });
    },
    counting: (startRun) => async (run) => {
      try {
        const end = await startRun(run);
        ended(run.triggerId, end.queued ? 'queued' : 'succeeded');
        return end;
      } catch (error) {
        const end = error instanceof RunNotQueuedError ? 'not_queued' : run.signal.aborted ? 'stopped' : 'failed';
        ended(run.triggerId, end);
        throw error;
      }
    },
  };
}
