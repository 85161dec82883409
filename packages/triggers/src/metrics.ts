import { Counter, Registry } from 'prom-client';
import type { Answer } from './answer.js';
import { RunNotQueuedError } from './errors.js';
import type { StartPoll } from './poll-start.js';
import type { RunEnd, StartRun } from './run-start.js';

export { serveMetrics } from '@plugboard/worker';

/**
 * The receiver's Prometheus metrics, in a registry of its own (never prom-client's global one):
 * each answer to a delivery by its trigger and outcome, each end of a delivery's run and of a
 * poll the receiver read (queued mode's polls are the workers'). Every label value is an id of the
 * configuration or comes from a fixed list (a `code`, how a run ended): never anything a sender
 * sent. Loaded only when the metrics are asked for.
 */

/** How a run or a poll ended: a delivery's run `queued` on the run queue; `not_queued` and `stopped` stay pending. */
export type RunEndLabel = 'succeeded' | 'queued' | 'failed' | 'not_queued' | 'stopped';

export interface ReceiverMetrics {
  readonly registry: Registry;
  /** A request answered: its trigger's id (empty when it named none this receiver serves). */
  answered(triggerId: string, answer: Answer): void;
  /** A request whose sender left before its body was read whole: it spent the trigger's rate, and is answered nothing. */
  abandoned(triggerId: string): void;
  /** `startRun`, each end of its runs counted. */
  countingRuns(startRun: StartRun): StartRun;
  /** `startPoll`, each end of its polls counted. */
  countingPolls(startPoll: StartPoll): StartPoll;
}

/** A starter whose every end is counted: how it ended, told by its outcome and its signal. */
function counted<Run extends { signal: AbortSignal }>(
  start: (run: Run) => Promise<RunEnd>,
  count: (run: Run, end: RunEndLabel) => void,
): (run: Run) => Promise<RunEnd> {
  return async (run) => {
    try {
      const end = await start(run);
      count(run, end.queued ? 'queued' : 'succeeded');
      return end;
    } catch (error) {
      count(run, error instanceof RunNotQueuedError ? 'not_queued' : run.signal.aborted ? 'stopped' : 'failed');
      throw error;
    }
  };
}

export function receiverMetrics(): ReceiverMetrics {
  const registry = new Registry();
  const registers = [registry];
  const deliveries = new Counter({
    name: 'plugboard_trigger_deliveries_total',
    help: "Requests, by trigger (empty: none this receiver serves) and outcome: accepted, the answer's code, or abandoned (its sender left before its body was read)",
    labelNames: ['trigger', 'outcome'],
    registers,
  });
  const runs = new Counter({
    name: 'plugboard_trigger_runs_total',
    help: 'Runs of accepted deliveries that ended, by trigger and how (not_queued and stopped stay pending)',
    labelNames: ['trigger', 'end'],
    registers,
  });
  const polls = new Counter({
    name: 'plugboard_trigger_polls_total',
    help: 'Polls this receiver read that ended, by poll trigger and how (stopped: with the receiver)',
    labelNames: ['poll', 'end'],
    registers,
  });
  return {
    registry,
    answered(trigger, answer) {
      deliveries.inc({ trigger, outcome: answer.result.code ?? 'accepted' });
    },
    abandoned(trigger) {
      deliveries.inc({ trigger, outcome: 'abandoned' });
    },
    countingRuns: (startRun) => counted(startRun, (run, end) => runs.inc({ trigger: run.triggerId, end })),
    countingPolls: (startPoll) => counted(startPoll, (poll, end) => polls.inc({ poll: poll.pollTriggerId, end })),
  };
}
