import type { CredentialStore } from '@plugboard/sdk/host';
import { type Job, type Queue, RateLimitError, type Worker } from 'bullmq';
import type { RunJob } from '../queue/jobs.js';
import { quietQueue } from '../queue/redis.js';
import { type CancelListener, listenForCancels } from './cancel-listener.js';
import { type MetricsServer, serveMetrics } from './metrics-server.js';
import { type RunEnd, type WorkerMetrics, workerMetrics } from './metrics.js';
import { countingRefreshes } from './token-refreshes.js';
import { inRunSpan, traceExchanges } from './tracing.js';

/**
 * What a worker observes of the runs it executes: each run's cancel signal, its span, and the
 * counts its `/metrics` shows when asked for one.
 */

/** What a run's body is given: its signal, aborted by a cancel, and where it counts its records. */
export interface RunScope {
  signal: AbortSignal;
  counted(records: number): void;
}

export interface RunObserver {
  /** Runs the body of one job with its scope, inside its span, and counts how it ended. */
  run<T>(job: Job<RunJob>, body: (scope: RunScope) => Promise<T>): Promise<T>;
  /** The store the runs' OAuth2 token sets are kept in, its refreshes counted. */
  credentials(store: CredentialStore): CredentialStore;
  /** Watches the BullMQ workers for runs found stalled. */
  watch(workers: readonly Worker<RunJob>[]): void;
  /** `http://HOST:PORT/metrics` when a port was given. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

export interface ObserverOptions {
  redis: { url: string; maxRetriesPerRequest: null };
  queues: readonly string[];
  metricsPort?: number | undefined;
  metricsHost?: string | undefined;
}

function endOf(error: unknown, signal: AbortSignal): RunEnd {
  if (signal.aborted) return 'cancelled';
  return error instanceof RateLimitError ? 'requeued' : 'failed';
}

async function startMetrics(options: ObserverOptions) {
  const queues = options.queues.map((name) => quietQueue(name, options.redis));
  const metrics = workerMetrics(queues);
  try {
    const server = await serveMetrics(metrics.registry, options.metricsPort!, options.metricsHost ?? '0.0.0.0');
    return { metrics, server, queues };
  } catch (error) {
    metrics.close();
    await Promise.all(queues.map((queue) => queue.close()));
    throw error;
  }
}

/** Starts observing: cancels always, traces through the OpenTelemetry API, metrics when `metricsPort` is given. */
export async function startObserver(options: ObserverOptions): Promise<RunObserver> {
  const served = options.metricsPort === undefined ? undefined : await startMetrics(options);
  const metrics: WorkerMetrics | undefined = served?.metrics;
  let cancels: CancelListener;
  try {
    cancels = await listenForCancels(options.redis.url);
  } catch (error) {
    await closeMetrics(served);
    throw error;
  }
  const stopTracing = traceExchanges();
  return {
    metricsUrl: served?.server.url,
    async run(job, body) {
      const { signal, release } = await cancels.watch(job.data.runId, job.data.attempt);
      const scope = { signal, counted: (records: number) => metrics?.recordsProcessed(records) };
      try {
        const result = await inRunSpan(job.data, () => body(scope));
        metrics?.runEnded('succeeded');
        return result;
      } catch (error) {
        metrics?.runEnded(endOf(error, signal));
        throw error;
      } finally {
        release();
      }
    },
    credentials: (store) => (metrics ? countingRefreshes(store, () => metrics.tokenRefreshed()) : store),
    watch(workers) {
      for (const worker of workers) worker.on('stalled', () => metrics?.stalled());
    },
    async close() {
      stopTracing();
      await cancels.close();
      await closeMetrics(served);
    },
  };
}

async function closeMetrics(served: { metrics: WorkerMetrics; server: MetricsServer; queues: Queue[] } | undefined) {
  if (!served) return;
  served.metrics.close();
  await served.server.close();
  await Promise.all(served.queues.map((queue) => queue.close()));
}
