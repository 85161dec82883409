import { createHash } from 'node:crypto';
import { type Database, database } from '@plugboard/worker';
import type pg from 'pg';
import type { AcceptedDelivery, Claim, EventStore } from './event-store.js';

/**
 * Accepted deliveries in PostgreSQL (`plugboard_trigger_events`, the worker's migration 0005), for
 * receivers behind a balancer: one row per event of a trigger, keyed by a digest of the event id
 * the sender signed. A claim inserts and does nothing on conflict, so of two deliveries of one
 * event, to any receivers, exactly one row is made; the loser reads the first. The records are
 * kept as JSON text (a jsonb column would refuse a record holding `\u0000`), the trigger's
 * secrets hidden, until retention removes them; `pending` says the run is not queued yet. A
 * server that cannot be reached is a `DatabaseUnavailableError` (`database_unavailable`, retryable).
 */

const COLUMNS = 'delivery_id, trigger_id, event_id, execution_id, received_at, records';

interface EventRow {
  delivery_id: string;
  trigger_id: string;
  event_id: string;
  execution_id: string | null;
  received_at: Date;
  records: string;
}

const eventKey = (eventId: string) => createHash('sha256').update(eventId).digest('hex');

function toDelivery(row: EventRow): AcceptedDelivery {
  return {
    triggerId: row.trigger_id,
    eventId: row.event_id,
    deliveryId: row.delivery_id,
    executionId: row.execution_id,
    receivedAt: row.received_at.toISOString(),
    records: JSON.parse(row.records) as unknown[],
  };
}

async function insert(db: Database, delivery: AcceptedDelivery, key: string, pending: boolean) {
  const { rowCount } = await db.query(
    `INSERT INTO plugboard_trigger_events (trigger_id, event_key, delivery_id, event_id, execution_id, received_at,
       records, pending)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (trigger_id, event_key) DO NOTHING`,
    [
      delivery.triggerId,
      key,
      delivery.deliveryId,
      delivery.eventId,
      delivery.executionId,
      new Date(delivery.receivedAt),
      JSON.stringify(delivery.records),
      pending,
    ],
  );
  return rowCount === 1;
}

export function postgresEventStore(pool: pg.Pool): EventStore {
  const db = database(pool);
  const claim = async (delivery: AcceptedDelivery, eventId: string, pending: boolean): Promise<Claim> => {
    const key = eventKey(eventId);
    // Twice at most: the first may be pruned between the insert that lost and the read.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (await insert(db, delivery, key, pending)) return { claimed: true };
      const { rows } = await db.query<EventRow>(
        `SELECT ${COLUMNS} FROM plugboard_trigger_events WHERE trigger_id = $1 AND event_key = $2`,
        [delivery.triggerId, key],
      );
      if (rows[0]) return { claimed: false, first: toDelivery(rows[0]) };
    }
    throw new Error(`the event of delivery ${delivery.deliveryId} was claimed and removed meanwhile`);
  };
  return {
    claim,
    async runEnded(deliveryId) {
      await db.query('UPDATE plugboard_trigger_events SET pending = false WHERE delivery_id = $1', [deliveryId]);
    },
    async pending() {
      const { rows } = await db.query<EventRow>(
        `SELECT ${COLUMNS} FROM plugboard_trigger_events WHERE pending ORDER BY received_at, delivery_id`,
      );
      return rows.map(toDelivery);
    },
    async prune(triggerId, before) {
      const { rowCount } = await db.query(
        'DELETE FROM plugboard_trigger_events WHERE trigger_id = $1 AND received_at < $2',
        [triggerId, new Date(before)],
      );
      return rowCount ?? 0;
    },
  };
}
