import { resolve } from 'node:path';
import { type Connector, InvalidInputError } from '@plugboard/sdk';
import { createHostTransport, type ExecutorOptions } from '@plugboard/sdk/host';
import { Worker } from 'bullmq';
import type pg from 'pg';
import { postgresCredentialStore } from '../credentials.js';
import { connect, database, release } from '../database.js';
import { assertMigrated } from '../migrations.js';
import { postgresSink } from '../sink/postgres-sink.js';
import { type RunObserver, startObserver } from '../observe/observer.js';
import { postgresStores } from '../stores.js';
import { runProcessor, type RunHost } from './execute-job.js';
import { PluginPool, type PluginPoolOptions, poolSettings } from './plugin-pool.js';
import { READS_QUEUE, type RunJob, WRITES_QUEUE } from './jobs.js';
import { watchLostRuns } from './lost-runs.js';
import { queueRedis, reachRedis } from './redis.js';
import { keepSchedules } from '../schedules/keeper.js';

export interface StartWorkerOptions extends PluginPoolOptions {
  /** The queue's Redis; its `maxmemory-policy` must be `noeviction`. It also shares the rate budgets. */
  redis: string;
  /** The fleet's PostgreSQL (migrated): a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
  /** Connectors imported into this process. */
  connectors?: readonly Connector[];
  /**
   * A folder of plugin packages, each run isolated in a process of its own (as `plugboard run
   * --plugins DIR`), started on its connector's first run and kept for the runs that follow:
   * replaced after `recycleAfterRuns` runs or once its memory passed `memoryCeilingMb`, at most
   * `maxPlugins` kept.
   */
  plugins?: string;
  /** Runs taken at once from each queue. */
  concurrency: number;
  /** The host's vault: each connection's credential, resolved when its run is taken. */
  resolveCredential: ExecutorOptions['resolveCredential'];
  /** 32 bytes: OAuth2 token sets are kept, refreshed and shared in PostgreSQL sealed with it. */
  credentialKey?: Buffer;
  /** Address ranges the runs may reach whatever their class (`createTransport({ network: { allow } })`). */
  allow?: string[];
  /**
   * How long a worker's hold on a run lasts without being renewed (it renews it at half that while
   * alive), and how often runs held by a worker that stopped are looked for; default 30 s. A read
   * found so is queued again; a write fails, for an operator.
   */
  lockDurationMs?: number;
  /**
   * `postgres`: reads (sources) write their pages into the exactly-once sink (`postgresSink` on the
   * fleet's database, through `runSourceIntoSink`) instead of reporting them only. Default: none.
   */
  sink?: 'postgres';
  /** Serves Prometheus' `GET /metrics` on this port (0: any free one; `metricsUrl` says which). */
  metricsPort?: number;
  /** The address the metrics are served on; default `0.0.0.0`. */
  metricsHost?: string;
}

/** A running worker. */
export interface RunWorker {
  /** The BullMQ workers: reads, and writes (`maxStalledCount: 0`). */
  readonly workers: { reads: Worker<RunJob>; writes: Worker<RunJob> };
  /** Where Prometheus scrapes this worker, with `metricsPort`. */
  readonly metricsUrl: string | undefined;
  /** Takes nothing new, finishes the runs it holds, then ends its plugins and connections; a second call waits for the first. */
  close(): Promise<void>;
}

/**
 * Takes runs from the queues and executes them through the SDK's executor with the PostgreSQL
 * stores. Refuses a Redis that cannot be reached or may evict keys, and a database whose schema
 * is not this code's. A write (destination) is never handed to a second worker when the one
 * holding it stalls: it stays for an operator, its idempotency key `running`.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunWorker> {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new RangeError('startWorker: concurrency must be a whole number of 1 or more');
  if (options.sink !== undefined && options.sink !== 'postgres')
    throw new InvalidInputError('worker', [{ path: 'sink', message: 'must be postgres, or left out' }]);
  poolSettings(options);
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: true });
  const connection = connect(options.postgres, 'postgres');
  let plugins: PluginPool | undefined;
  let observer: RunObserver | undefined;
  try {
    await assertMigrated(connection.pool);
    const allow = options.allow ?? [];
    plugins = options.plugins
      ? await PluginPool.open(resolve(options.plugins), { allow, redis: redis.connection.url }, options)
      : undefined;
    const watching = (observer = await startObserver({
      ...options,
      redis: redis.connection,
      queues: [READS_QUEUE, WRITES_QUEUE],
    }));
    const transport = createHostTransport({
      redis: redis.connection.url,
      network: { allow },
      ...(options.credentialKey
        ? {
            credentials: {
              store: watching.credentials(postgresCredentialStore(connection.pool, { key: options.credentialKey })),
            },
          }
        : {}),
    });
    const host: RunHost = {
      ...(options.connectors ? { connectors: options.connectors } : {}),
      resolveCredential: options.resolveCredential,
      stores: postgresStores(connection.pool),
      transport,
    };
    const db = database(connection.pool);
    const lock = options.lockDurationMs ?? 30_000;
    const common = {
      connection: redis.connection,
      concurrency: options.concurrency,
      lockDuration: lock,
      stalledInterval: lock,
    };
    const checks = { ...host, ...(plugins ? { plugins: plugins.checking() } : {}) };
    const schedules = await keepSchedules({ redis, pool: connection.pool, run: checks, everyMs: lock });
    const sink = options.sink === 'postgres' ? postgresSink(connection.pool) : undefined;
    const reads: Worker<RunJob> = new Worker(
      READS_QUEUE,
      runProcessor({ host, db, worker: () => reads, observer: watching, sink, plugins }),
      common,
    );
    const writes: Worker<RunJob> = new Worker(
      WRITES_QUEUE,
      runProcessor({ host, db, worker: () => writes, observer: watching, plugins }),
      {
        ...common,
        // A stalled write may have reached the provider: never run it again on another worker.
        maxStalledCount: 0,
      },
    );
    // A failed run is in its row; BullMQ's error events must not crash the process.
    for (const worker of [reads, writes]) worker.on('error', () => {});
    watchLostRuns(db, { reads, writes });
    watching.watch([reads, writes]);
    const started = plugins;
    let closing: Promise<void> | undefined;
    return {
      workers: { reads, writes },
      metricsUrl: watching.metricsUrl,
      // Once: a second call (a second SIGTERM, a finally after a drain) waits for the first.
      close: () =>
        (closing ??= (async () => {
          await Promise.all([reads.close(), writes.close(), schedules.close()]);
          await transport.close();
          await watching.close();
          await started?.close();
          await release(connection);
        })()),
    };
  } catch (error) {
    await observer?.close();
    await plugins?.close();
    await release(connection);
    throw error;
  }
}
