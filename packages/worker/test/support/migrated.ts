import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { migrate } from '../../src/index.js';
import { type PostgresServer, startPostgres } from './postgres.js';

/**
 * A test file's PostgreSQL: a server of its own, a migrated database and two pools on it (two
 * machines, each with its own connections). `empty()` deletes every row between tests.
 */
export interface MigratedDatabase {
  server: PostgresServer;
  url: string;
  pools: [pg.Pool, pg.Pool];
  empty(): Promise<void>;
}

const TABLES = [
  'plugboard_checkpoints',
  'plugboard_idempotency_keys',
  'plugboard_idempotency_decisions',
  'plugboard_credentials',
  'plugboard_runs',
];

/** Registers the file's beforeAll and afterAll; the returned object is filled in once they ran. */
export function migratedDatabase(): MigratedDatabase {
  const state = {} as MigratedDatabase;
  beforeAll(async () => {
    state.server = await startPostgres();
    state.url = await state.server.database();
    await migrate(state.url);
    state.pools = [new pg.Pool({ connectionString: state.url }), new pg.Pool({ connectionString: state.url })];
    state.empty = async () => void (await state.pools[0].query(`TRUNCATE ${TABLES.join(', ')}`));
  });
  afterAll(async () => {
    await Promise.all((state.pools ?? []).map((pool) => pool.end()));
    await state.server?.stop();
  });
  return state;
}
