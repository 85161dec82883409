import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type PostgresServer, startPostgres } from './support/postgres.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe('the test harness', () => {
  test('serves a database on 127.0.0.1 and makes fresh ones', async () => {
    const pool = new pg.Pool({ connectionString: await server.database() });
    try {
      const { rows } = await pool.query('SELECT current_database() AS name, inet_server_addr()::text AS address');
      expect(rows[0]).toEqual({ name: 'test_1', address: '127.0.0.1/32' });
    } finally {
      await pool.end();
    }
  });
});
