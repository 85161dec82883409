import { database } from '@plugboard/worker';
import type pg from 'pg';
import type { ReceiptLog, TriggerDelivery } from './receipts.js';

/**
 * The receipts in PostgreSQL (`plugboard_trigger_deliveries`, the worker's migration 0005), one
 * row per request to a known trigger, committed before the request is answered, so every receiver
 * behind a balancer writes to one list. Listed oldest first, a page at a time. A server that
 * cannot be reached is a `DatabaseUnavailableError` (`database_unavailable`, retryable).
 */

const COLUMNS = `delivery_id, trigger_id, received_at, status, reason_code, http_status, event_id, event_type,
  payload_sha256, size_bytes, record_count, execution_id`;
/** Rows read at once when listing: memory stays flat however many receipts there are. */
const PAGE = 500;
/** Rows removed a statement when pruning: a statement's locks and its WAL stay small. */
const PRUNE_BATCH = 1000;

interface ReceiptRow {
  id: string;
  delivery_id: string;
  trigger_id: string;
  received_at: Date;
  status: TriggerDelivery['status'];
  reason_code: TriggerDelivery['reasonCode'];
  http_status: number | null;
  event_id: string | null;
  event_type: string | null;
  payload_sha256: string | null;
  size_bytes: string | null;
  record_count: number | null;
  execution_id: string | null;
}

/** PostgreSQL's text holds no NUL; a body's `type` may (the sender's choice), and is kept with U+FFFD instead. */
const keepable = (text: string | null) => (text === null ? null : text.replaceAll('\0', '\uFFFD'));

function toReceipt(row: ReceiptRow): TriggerDelivery {
  return {
    deliveryId: row.delivery_id,
    triggerId: row.trigger_id,
    receivedAt: row.received_at.toISOString(),
    status: row.status,
    reasonCode: row.reason_code,
    httpStatus: row.http_status,
    eventId: row.event_id,
    eventType: row.event_type,
    payloadSha256: row.payload_sha256,
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    recordCount: row.record_count,
    executionId: row.execution_id,
  };
}

export function postgresReceiptLog(pool: pg.Pool): ReceiptLog {
  const db = database(pool);
  return {
    async append(receipt, holds) {
      // This store's claims are committed before they are answered (no `holds`); a receipt on a failed one is not inserted.
      await holds;
      await db.query(
        `INSERT INTO plugboard_trigger_deliveries (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          receipt.deliveryId,
          receipt.triggerId,
          new Date(receipt.receivedAt),
          receipt.status,
          receipt.reasonCode,
          receipt.httpStatus,
          receipt.eventId,
          keepable(receipt.eventType),
          receipt.payloadSha256,
          receipt.sizeBytes,
          receipt.recordCount,
          receipt.executionId,
        ],
      );
    },
    /**
     * Removes the rows received before `before`, a batch at a time, found through the index on
     * `received_at` (migration 0007): never a scan of the whole table, however big, and rows a
     * receiver with a clock ahead wrote hold up none behind them. Receivers behind one balancer
     * may prune at once: a row is removed once.
     */
    async prune(before) {
      for (;;) {
        const { rowCount } = await db.query(
          `DELETE FROM plugboard_trigger_deliveries WHERE id IN (
             SELECT id FROM plugboard_trigger_deliveries WHERE received_at < $1 LIMIT ${PRUNE_BATCH})`,
          [new Date(before)],
        );
        if (!rowCount) return;
      }
    },
    // The pool is the receiver's: it ends it.
    close: async () => undefined,
  };
}

/** The receipts kept in PostgreSQL, oldest first: of one trigger, or of all. */
export async function* postgresDeliveries(
  pool: pg.Pool,
  options: { triggerId?: string } = {},
): AsyncGenerator<TriggerDelivery> {
  const db = database(pool);
  let after = '0';
  for (;;) {
    const { rows } = await db.query<ReceiptRow>(
      `SELECT id, ${COLUMNS} FROM plugboard_trigger_deliveries
       WHERE id > $1 AND ($2::text IS NULL OR trigger_id = $2) ORDER BY id LIMIT ${PAGE}`,
      [after, options.triggerId ?? null],
    );
    for (const row of rows) yield toReceipt(row);
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}
