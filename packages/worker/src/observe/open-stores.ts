import type { Stores } from '@plugboard/sdk/host';
import type pg from 'pg';
import { connect, release } from '../database.js';
import { assertMigrated } from '../migrations.js';
import { postgresStores } from '../stores.js';

/** A pool whose schema was checked; `close()` ends it when it is one of its own. */
export interface MigratedPool {
  pool: pg.Pool;
  /** The server as messages name it: the URL, its password masked. */
  server: string;
  close(): Promise<void>;
}

/**
 * A pool of its own on the URL for an operator command or a serving process (`--postgres URL`),
 * or the host's pool (left open by `close()`): the schema checked (a typed `SchemaVersionError` or
 * `DatabaseUnavailableError`), nothing of its own left open when it is refused; an idle connection
 * that breaks (the server restarted) ends no process.
 */
export async function openMigratedPool(target: string | pg.Pool): Promise<MigratedPool> {
  const connection = connect(target, 'postgres');
  try {
    await assertMigrated(connection.pool);
  } catch (error) {
    await release(connection);
    throw error;
  }
  return { pool: connection.pool, server: connection.server, close: () => release(connection) };
}

/**
 * The fleet's stores for one operator command (`plugboard idempotency show|settle --postgres URL`):
 * a pool of its own on the URL, the schema checked, ended by `close()`.
 */
export interface OpenedStores {
  stores: Stores;
  /** The server as messages name it: the URL, its password masked. */
  server: string;
  close(): Promise<void>;
}

export async function openPostgresStores(url: string): Promise<OpenedStores> {
  const { pool, server, close } = await openMigratedPool(url);
  return { stores: postgresStores(pool), server, close };
}
