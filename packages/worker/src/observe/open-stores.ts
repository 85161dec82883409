import type { Stores } from '@plugboard/sdk/host';
import { connect, release } from '../database.js';
import { assertMigrated } from '../migrations.js';
import { postgresStores } from '../stores.js';

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
  const connection = connect(url, 'postgres');
  try {
    await assertMigrated(connection.pool);
  } catch (error) {
    await release(connection);
    throw error;
  }
  return { stores: postgresStores(connection.pool), server: connection.server, close: () => release(connection) };
}
