import { ConflictError, excerpt } from '@plugboard/sdk';
import {
  type CheckpointStore,
  type IdempotencyDecision,
  type IdempotencyRecord,
  type IdempotencyStore,
  recordAfterDecision,
  recordsEqual,
  type Stores,
} from '@plugboard/sdk/host';
import type pg from 'pg';
import { type Database, database } from './database.js';
import { checkedKey, jsonText } from './limits.js';

/**
 * The executor's stores in PostgreSQL, shared by every process and machine on the database:
 * checkpoints, idempotency records and the operators' decisions (tables of `0001_state.sql`).
 */

const CHECKPOINTS = 'PostgreSQL checkpoint store';
const KEYS = 'PostgreSQL idempotency store';
/** A claim that finds the key released between its insert and its read claims again, this many times at most. */
const CLAIM_ATTEMPTS = 5;

function checkpointStore(db: Database): CheckpointStore {
  return {
    async get(stream) {
      const { rows } = await db.query<{ checkpoint: unknown }>(
        'SELECT checkpoint FROM plugboard_checkpoints WHERE stream = $1',
        [checkedKey(stream, CHECKPOINTS, 'stream')],
      );
      return rows[0]?.checkpoint;
    },
    async commit(stream, checkpoint) {
      // One statement: after a crash the old checkpoint or the new one is there, never a mix.
      await db.query(
        `INSERT INTO plugboard_checkpoints (stream, checkpoint) VALUES ($1, $2::jsonb)
         ON CONFLICT (stream) DO UPDATE SET checkpoint = excluded.checkpoint, saved_at = now()`,
        [checkedKey(stream, CHECKPOINTS, 'stream'), jsonText(checkpoint, CHECKPOINTS, 'checkpoint')],
      );
    },
    async clear(stream) {
      await db.query('DELETE FROM plugboard_checkpoints WHERE stream = $1', [
        checkedKey(stream, CHECKPOINTS, 'stream'),
      ]);
    },
  };
}

async function recordOf(client: Pick<Database, 'query'>, key: string, lock = '') {
  const { rows } = await client.query<{ record: IdempotencyRecord }>(
    `SELECT record FROM plugboard_idempotency_keys WHERE key = $1${lock}`,
    [key],
  );
  return rows[0]?.record;
}

/**
 * Claims a key: the insert wins or finds the key taken (waiting, if another transaction is
 * inserting it, for that one to end); then the record there is read. Undefined when it won.
 */
async function claimOnce(db: Database, key: string, record: string) {
  return db.transaction(async (client) => {
    const inserted = await client.query(
      'INSERT INTO plugboard_idempotency_keys (key, record) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO NOTHING',
      [key, record],
    );
    if (inserted.rowCount === 1) return { won: true as const };
    return { won: false as const, found: await recordOf(client, key) };
  });
}

/** Applies a decision when the record, locked for the transaction, is still the one decided on. */
async function decideIn(client: pg.PoolClient, key: string, decision: IdempotencyDecision, result: unknown) {
  const found = await recordOf(client, key, ' FOR UPDATE');
  if (!recordsEqual(found, decision.before)) return { applied: false as const, ...(found ? { record: found } : {}) };
  await client.query('INSERT INTO plugboard_idempotency_decisions (key, decision) VALUES ($1, $2::jsonb)', [
    key,
    jsonText(decision, KEYS, 'decision'),
  ]);
  const after = recordAfterDecision(decision, result);
  if (after)
    await client.query('UPDATE plugboard_idempotency_keys SET record = $2::jsonb, saved_at = now() WHERE key = $1', [
      key,
      jsonText(after, KEYS, 'result'),
    ]);
  else await client.query('DELETE FROM plugboard_idempotency_keys WHERE key = $1', [key]);
  return { applied: true as const, ...(after ? { record: after } : {}) };
}

function idempotencyStore(db: Database): IdempotencyStore {
  const checked = (key: string) => checkedKey(key, KEYS, 'key');
  return {
    async get(key) {
      return recordOf(db, checked(key));
    },
    async claim(key, running) {
      const record = jsonText(running, KEYS, 'record');
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
        const outcome = await claimOnce(db, checked(key), record);
        if (outcome.won) return undefined;
        if (outcome.found) return outcome.found;
        // Released between the insert and the read: claim again.
      }
      throw new ConflictError(
        `${KEYS}: key ${JSON.stringify(excerpt(key))} was claimed and released ${CLAIM_ATTEMPTS} times while this claim ran; try again`,
        {
          state: 'idempotency_claim_contended',
          retryable: true,
        },
      );
    },
    async settle(key, outcome) {
      await db.query(
        `INSERT INTO plugboard_idempotency_keys (key, record) VALUES ($1, $2::jsonb)
         ON CONFLICT (key) DO UPDATE SET record = excluded.record, saved_at = now()`,
        [checked(key), jsonText(outcome, KEYS, 'record')],
      );
    },
    async release(key) {
      await db.query('DELETE FROM plugboard_idempotency_keys WHERE key = $1', [checked(key)]);
    },
    async inspect(key) {
      const found = await recordOf(db, checked(key));
      const { rows } = await db.query<{ decision: IdempotencyDecision }>(
        'SELECT decision FROM plugboard_idempotency_decisions WHERE key = $1 ORDER BY id',
        [key],
      );
      return { key, ...(found ? { record: found } : {}), decisions: rows.map((row) => row.decision) };
    },
    async decide(key, decision, result) {
      checked(key);
      return db.transaction((client) => decideIn(client, key, decision, result));
    },
  };
}

/**
 * Both stores in PostgreSQL, on the host's pool (migrated: `migrate`). A claim is atomic across
 * processes and machines; a decision applies only to the record it was made on, compared under
 * the row's lock; decisions are kept when the key runs again.
 */
export function postgresStores(pool: pg.Pool): Stores {
  const db = database(pool);
  return { checkpoints: checkpointStore(db), idempotency: idempotencyStore(db) };
}
