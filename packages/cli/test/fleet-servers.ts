import { migrate } from '@plugboard/worker';
import { afterAll, beforeAll } from 'vitest';
import { type RedisServer, startRedis } from '../../sdk/test/support/redis.js';
import { type PostgresServer, startPostgres } from '../../worker/test/support/postgres.js';

/** A test file's own Redis and PostgreSQL, filled in before its tests and stopped after them. */
export interface FleetServers {
  redis: RedisServer;
  postgres: PostgresServer;
  /** A new database on the server, migrated: a test's runs, keys and schedules of its own. */
  database(): Promise<string>;
}

export function useFleetServers(): FleetServers {
  const servers = {
    async database() {
      const url = await servers.postgres.database();
      await migrate(url);
      return url;
    },
  } as FleetServers;
  beforeAll(async () => {
    const started = await startRedis();
    if (!started.server) throw new Error(started.reason);
    servers.redis = started.server;
    servers.postgres = await startPostgres();
  });
  afterAll(async () => {
    await servers.redis?.stop();
    await servers.postgres?.stop();
  });
  return servers;
}
