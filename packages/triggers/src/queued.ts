import { createSubmitter, database, openMigratedPool } from '@plugboard/worker';
import type pg from 'pg';
import type { PollSettings } from './poll-config.js';
import { postgresEventStore } from './postgres-events.js';
import { postgresReceiptLog } from './postgres-receipts.js';
import { checkPostgresUrl, type ReceiverQueueOptions } from './queue-options.js';
import { queuedPolls } from './queued-polls.js';
import { queuedRunStarter } from './queued-runs.js';

/**
 * The receiver's state in queued mode, all of it in the worker fleet's servers: dedupe and
 * receipts in PostgreSQL (its schema checked once), runs submitted on the run queue, polls as
 * the fleet's schedules. Loaded only when a host asks for the queue, so an embedded receiver
 * never loads BullMQ or pg.
 */

/** The pool, the schema checked (a typed `SchemaVersionError` or `DatabaseUnavailableError`), or nothing left open. */
export async function migratedPool(postgres: string | pg.Pool): Promise<{ pool: pg.Pool; end(): Promise<void> }> {
  if (typeof postgres === 'string') checkPostgresUrl(postgres, 'postgres');
  const { pool, close } = await openMigratedPool(postgres);
  return { pool, end: close };
}

/** The state `receiver-state.ts` opens in queued mode (its `ReceiverState`). */
export async function openQueued(queue: ReceiverQueueOptions, polls: readonly PollSettings[]) {
  const { pool, end } = await migratedPool(queue.postgres);
  const checks = {
    ...(queue.connectors ? { connectors: queue.connectors } : {}),
    ...(queue.plugins ? { plugins: queue.plugins } : {}),
  };
  const submitter = createSubmitter({ redis: queue.redis, postgres: pool });
  return {
    events: postgresEventStore(pool),
    receipts: postgresReceiptLog(pool),
    startRun: queuedRunStarter(submitter, checks),
    polls: queuedPolls(polls, { ...checks, redis: queue.redis, postgres: pool }),
    probe: async () => {
      await database(pool).query('SELECT 1');
    },
    async close() {
      await submitter.close();
      await end();
    },
  };
}
