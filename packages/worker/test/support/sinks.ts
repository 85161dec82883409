import type pg from 'pg';
import type { MigratedDatabase } from './migrated.js';

/** Empties the state tables and drops every sink table (those a test named too), for a test of its own. */
export async function emptyWithSinks(db: MigratedDatabase, named: readonly string[] = []): Promise<void> {
  await db.empty();
  const { rows } = await db.pools[0].query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND (tablename LIKE 'plugboard\\_sink\\_%' OR tablename = ANY($1))",
    [named],
  );
  for (const { name } of rows) await db.pools[0].query(`DROP TABLE "${name}"`);
}

/** The rows of a sink table, by key. */
export async function sinkRows(pool: pg.Pool, table: string) {
  const { rows } = await pool.query<{ key: string; record: Record<string, unknown>; writes: number }>(
    `SELECT key, record, writes FROM "${table}" ORDER BY key`,
  );
  return rows;
}
