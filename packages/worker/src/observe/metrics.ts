import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Queue } from 'bullmq';
import { Counter, Gauge, Registry } from 'prom-client';

/**
 * A worker's Prometheus metrics, in a registry of its own (never prom-client's global one). Every
 * label value comes from a short fixed list: a run's status, a status code's number, a queue's
 * name. Never a URL, an id, nor anything a provider sent. Provider requests and budget waits are
 * those of the process, read on the SDK's diagnostics channels.
 */

export type RunEnd = 'succeeded' | 'failed' | 'cancelled' | 'requeued';

export interface WorkerMetrics {
  readonly registry: Registry;
  runEnded(end: RunEnd): void;
  recordsProcessed(count: number): void;
  stalled(): void;
  tokenRefreshed(): void;
  /** Stops listening to the SDK's channels. */
  close(): void;
}

const EXCHANGE_END = 'plugboard:http:exchange:end';
const BUDGET_WAIT = 'plugboard:http:budget:wait';

/** A status code as a label: its number when it is one HTTP has, else `error` (no answer). */
export function statusLabel(status: unknown): string {
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599
    ? String(status)
    : 'error';
}

function counters(registry: Registry) {
  const registers = [registry];
  return {
    runs: new Counter({
      name: 'plugboard_runs_total',
      help: 'Runs this worker ended, by how they ended (requeued: put back by a rate limit)',
      labelNames: ['status'],
      registers,
    }),
    records: new Counter({
      name: 'plugboard_records_total',
      help: 'Records of acknowledged pages (a destination result counts one)',
      registers,
    }),
    requests: new Counter({
      name: 'plugboard_provider_requests_total',
      help: 'Exchanges with providers (each attempt and redirect hop), by status code, or error',
      labelNames: ['status'],
      registers,
    }),
    budgetWaits: new Counter({
      name: 'plugboard_budget_waits_total',
      help: 'Requests that waited for their rate budget',
      registers,
    }),
    budgetWaitSeconds: new Counter({
      name: 'plugboard_budget_wait_seconds_total',
      help: 'Time requests waited for their rate budget',
      registers,
    }),
    refreshes: new Counter({
      name: 'plugboard_token_refreshes_total',
      help: "OAuth2 token sets this worker replaced with a new access token in the fleet's credential store",
      registers,
    }),
    stalled: new Counter({
      name: 'plugboard_stalled_runs_total',
      help: 'Runs found held by a worker that stopped (a read is queued again, a write failed for an operator)',
      registers,
    }),
  };
}

/** The metrics of a worker whose queues are `queues` (their depth is read when scraped). */
export function workerMetrics(queues: readonly Queue[]): WorkerMetrics {
  const registry = new Registry();
  const count = counters(registry);
  new Gauge({
    name: 'plugboard_queue_depth',
    help: 'Runs in a queue, by queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const queue of queues) {
        const counts = await queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active');
        for (const [state, value] of Object.entries(counts)) this.set({ queue: queue.name, state }, value);
      }
    },
  });
  const onExchange = (message: unknown) => {
    const { status, code } = message as { status?: unknown; code?: unknown };
    // Held back by its budget before writing: nothing reached the provider.
    if (code === 'held_back') return;
    count.requests.inc({ status: statusLabel(status) });
  };
  const onBudgetWait = (message: unknown) => {
    const { waitMs } = message as { waitMs?: unknown };
    count.budgetWaits.inc();
    if (typeof waitMs === 'number' && Number.isFinite(waitMs) && waitMs > 0) count.budgetWaitSeconds.inc(waitMs / 1000);
  };
  subscribe(EXCHANGE_END, onExchange);
  subscribe(BUDGET_WAIT, onBudgetWait);
  return {
    registry,
    runEnded: (end) => count.runs.inc({ status: end }),
    recordsProcessed: (records) => count.records.inc(records),
    stalled: () => count.stalled.inc(),
    tokenRefreshed: () => count.refreshes.inc(),
    close() {
      unsubscribe(EXCHANGE_END, onExchange);
      unsubscribe(BUDGET_WAIT, onBudgetWait);
    },
  };
}
