import { migrate } from '@plugboard/worker';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type PostgresServer, startPostgres } from '../../../worker/test/support/postgres.js';
import { postgresApprovalStore } from '../../src/index.js';
import { approvalStoreContract, requestOf } from './contract.js';

/** A PostgreSQL of the file's own; each test gets a fresh migrated database and two pools on it (two machines). */
let server: PostgresServer;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

async function migratedPools(): Promise<[pg.Pool, pg.Pool]> {
  const url = await server.database();
  await migrate(url);
  const two: [pg.Pool, pg.Pool] = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })];
  pools.push(...two);
  return two;
}

approvalStoreContract('postgresApprovalStore', async (clock) => {
  const [one, two] = await migratedPools();
  return [postgresApprovalStore(one, { clock }), postgresApprovalStore(two, { clock })];
});

test('the same requester asking at once from two machines makes one approval', async () => {
  const [one, two] = await migratedPools();
  const approvals = await Promise.all(
    [one, two, one, two].map((pool) => postgresApprovalStore(pool).request(requestOf())),
  );
  expect(new Set(approvals.map((approval) => approval.id)).size).toBe(1);
  const { rows } = await one.query('SELECT count(*)::integer AS count FROM plugboard_approvals');
  expect(rows[0].count).toBe(1);
});
