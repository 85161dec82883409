import { migrate } from '@plugboard/worker';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type RedisServer, startRedis } from '../../sdk/test/support/redis.js';
import { type PostgresServer, startPostgres } from '../../worker/test/support/postgres.js';

/**
 * A test file's worker fleet servers, as the worker's own tests start them: a redis-server and a
 * PostgreSQL of the file's own on free ports of 127.0.0.1, the database migrated by the one
 * `migrate`. Every test starts on an empty Redis and empty tables. Where redis-server or
 * PostgreSQL's programs are not installed, the file's tests are skipped saying why (on CI they fail).
 */

export interface Fleet {
  redis: RedisServer;
  postgres: PostgresServer;
  url: string;
  pool: pg.Pool;
  client: Redis;
  /** Why the tests are skipped; empty when the servers run. */
  skipped: string;
}

const TABLES = ['plugboard_runs', 'plugboard_schedules', 'plugboard_trigger_events', 'plugboard_trigger_deliveries'];

function unavailable(state: Fleet, reason: string): void {
  if (process.env.CI) throw new Error(`the queued receiver tests need redis-server and PostgreSQL on CI: ${reason}`);
  console.warn(`skipping the queued receiver tests: ${reason}`);
  state.skipped = reason;
}

export function fleetServers(): Fleet {
  const state = { skipped: '' } as Fleet;
  beforeAll(async () => {
    const started = await startRedis();
    if (!started.server) return unavailable(state, started.reason);
    state.redis = started.server;
    try {
      state.postgres = await startPostgres();
    } catch (error) {
      // The programs missing is a reason to skip; a server that is there but fails is a failure.
      if (/were not found/.test(String(error))) return unavailable(state, String(error));
      throw error;
    }
    state.url = await state.postgres.database();
    await migrate(state.url);
    state.pool = new pg.Pool({ connectionString: state.url });
    state.client = new Redis(state.redis.url);
  });
  beforeEach(async (context) => {
    if (state.skipped) return context.skip();
    await state.client.flushall();
    await state.pool.query(`TRUNCATE ${TABLES.join(', ')}`);
  });
  afterAll(async () => {
    state.client?.disconnect();
    await state.pool?.end();
    await state.postgres?.stop();
    await state.redis?.stop();
  });
  return state;
}
