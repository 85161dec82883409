import { excerpt } from '@plugboard/sdk';
import type { Database } from '../database.js';

/**
 * The `plugboard_runs` table (`0002_runs.sql`): one row per run in the platform's Execution
 * shape. The row, not the queue, says whether a run with a given id exists: a resubmission finds
 * it, and only a failed or cancelled run is queued again.
 */

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A run as the platform's Execution names its fields (those the queue knows). */
export interface Run {
  id: string;
  status: RunStatus;
  connector: string;
  action: string;
  connectionId: string;
  direction: 'source' | 'destination';
  correlationId: string;
  idempotencyKey: string | null;
  recordsReceived: number;
  recordsProcessed: number;
  recordsFailed: number;
  retryCount: number;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  /** The typed error's stable code and message, when the run failed, and the provider's HTTP status when it answered. */
  error: { code: string; message: string; status?: number } | null;
  createdAt: string;
  updatedAt: string;
}

/** Whether a run with this status has ended: succeeded, failed or cancelled. */
export function hasEnded(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

/** What a new row holds. */
export type NewRun = Pick<
  Run,
  'id' | 'connector' | 'action' | 'connectionId' | 'direction' | 'correlationId' | 'idempotencyKey'
>;

export const COLUMNS = `id, status, connector, action, connection_id, direction, correlation_id, idempotency_key,
  records_received, records_processed, records_failed, retry_count, error_code, error_message, error_status,
  started_at, completed_at, created_at, updated_at`;

export interface RunRow {
  id: string;
  status: RunStatus;
  connector: string;
  action: string;
  connection_id: string;
  direction: 'source' | 'destination';
  correlation_id: string;
  idempotency_key: string | null;
  records_received: number;
  records_processed: number;
  records_failed: number;
  retry_count: number;
  error_code: string | null;
  error_message: string | null;
  error_status: number | null;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function toRun(row: RunRow): Run {
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  return {
    id: row.id,
    status: row.status,
    connector: row.connector,
    action: row.action,
    connectionId: row.connection_id,
    direction: row.direction,
    correlationId: row.correlation_id,
    idempotencyKey: row.idempotency_key,
    recordsReceived: row.records_received,
    recordsProcessed: row.records_processed,
    recordsFailed: row.records_failed,
    retryCount: row.retry_count,
    startedAt: iso(row.started_at),
    completedAt: iso(row.completed_at),
    durationMs: row.started_at && row.completed_at ? row.completed_at.getTime() - row.started_at.getTime() : null,
    error:
      row.error_code === null
        ? null
        : {
            code: row.error_code,
            message: row.error_message ?? '',
            ...(row.error_status === null ? {} : { status: row.error_status }),
          },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function readRun(db: Database, id: string): Promise<Run | undefined> {
  const { rows } = await db.query<RunRow>(`SELECT ${COLUMNS} FROM plugboard_runs WHERE id = $1`, [id]);
  return rows[0] && toRun(rows[0]);
}

/**
 * Records a submitted run: a new row `queued`, or a failed or cancelled one queued again (one more
 * `retryCount`). Answers the row, whether this call made it `queued` (`fresh`), and whether it is to
 * be queued now: a fresh one, or one still `queued` (its job may not have reached Redis; BullMQ keeps
 * one job per id); never a running or succeeded one.
 */
export async function recordSubmission(
  db: Database,
  run: NewRun,
): Promise<{ run: Run; enqueue: boolean; fresh: boolean }> {
  const inserted = await db.query<RunRow>(
    `INSERT INTO plugboard_runs (id, status, connector, action, connection_id, direction, correlation_id, idempotency_key)
     VALUES ($1, 'queued', $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
    [run.id, run.connector, run.action, run.connectionId, run.direction, run.correlationId, run.idempotencyKey],
  );
  if (inserted.rows[0]) return { run: toRun(inserted.rows[0]), enqueue: true, fresh: true };
  const requeued = await db.query<RunRow>(
    `UPDATE plugboard_runs SET status = 'queued', retry_count = retry_count + 1, error_code = NULL,
       error_message = NULL, error_status = NULL, started_at = NULL, completed_at = NULL, records_received = 0,
       records_processed = 0, records_failed = 0, updated_at = now()
     WHERE id = $1 AND status IN ('failed', 'cancelled') RETURNING ${COLUMNS}`,
    [run.id],
  );
  if (requeued.rows[0]) return { run: toRun(requeued.rows[0]), enqueue: true, fresh: true };
  const existing = (await readRun(db, run.id))!;
  return { run: existing, enqueue: existing.status === 'queued', fresh: false };
}

/** The run was taken by a worker. */
export async function markRunning(db: Database, id: string): Promise<void> {
  await db.query(
    `UPDATE plugboard_runs SET status = 'running', started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = $1`,
    [id],
  );
}

/** Back in the queue, as when a provider's rate limit paused it before anything was done. */
export async function markQueued(db: Database, id: string): Promise<void> {
  await db.query(`UPDATE plugboard_runs SET status = 'queued', updated_at = now() WHERE id = $1`, [id]);
}

/** A page was acknowledged: its records received and processed. */
export async function countPage(db: Database, id: string, records: number): Promise<void> {
  await db.query(
    `UPDATE plugboard_runs SET records_received = records_received + $2, records_processed = records_processed + $2,
       updated_at = now() WHERE id = $1`,
    [id, records],
  );
}

/** The run ended: succeeded, or failed with its typed error's code, message (bounded) and the provider's status. */
export async function finishRun(
  db: Database,
  id: string,
  end:
    | { status: 'succeeded' }
    | { status: 'failed'; code: string; message: string; providerStatus?: number | undefined },
): Promise<void> {
  const failed = end.status === 'failed';
  await db.query(
    `UPDATE plugboard_runs SET status = $2, error_code = $3, error_message = $4, error_status = $5,
       completed_at = now(), started_at = COALESCE(started_at, now()), updated_at = now() WHERE id = $1`,
    [
      id,
      end.status,
      failed ? end.code : null,
      failed ? excerpt(end.message, 2000) : null,
      failed ? (end.providerStatus ?? null) : null,
    ],
  );
}
