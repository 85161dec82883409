import { createServer, type Socket } from 'node:net';
import { InvalidInputError } from '@plugboard/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertMigrated, DatabaseUnavailableError, migrate, SchemaVersionError } from '../src/index.js';
import { freePort } from '../../sdk/test/support/redis.js';
import { type PostgresServer, startPostgres } from './support/postgres.js';

/** The numbered files under migrations/, in order: what this code knows. */
const MIGRATIONS = [
  { version: 1, name: 'state' },
  { version: 2, name: 'runs' },
  { version: 3, name: 'schedules' },
  { version: 4, name: 'run_error_status' },
  { version: 5, name: 'trigger_deliveries' },
  { version: 6, name: 'approvals' },
  { version: 7, name: 'trigger_deliveries_received' },
];
const KNOWN = MIGRATIONS.length;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** A pool on a fresh database, ended after `work`. */
async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

describe('migrate', () => {
  test('applies every migration once, records it, and finds nothing to do the next time', async () => {
    const url = await server.database();
    expect(await migrate(url)).toEqual({
      server: url,
      applied: MIGRATIONS,
      version: KNOWN,
    });
    expect(await migrate(url)).toEqual({ server: url, applied: [], version: KNOWN });
    await withPool(url, async (pool) => {
      const { rows } = await pool.query('SELECT version, name FROM plugboard_migrations');
      expect(rows).toEqual(MIGRATIONS);
      await assertMigrated(pool);
      // The host's pool is the host's to end.
      expect(pool.ended).toBe(false);
    });
  });

  test('run from 4 pools at once: applied exactly once, every call ends migrated', async () => {
    const url = await server.database();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url }));
    try {
      const reports = await Promise.all(pools.map((pool) => migrate(pool)));
      // Which call applies which migration is the lock's choice: each is applied by exactly one.
      const applied = reports.flatMap((report) => report.applied).sort((a, b) => a.version - b.version);
      expect(applied).toEqual(MIGRATIONS);
      expect(reports.map((report) => report.version)).toEqual([KNOWN, KNOWN, KNOWN, KNOWN]);
      const { rows } = await pools[0]!.query('SELECT count(*)::int AS n FROM plugboard_migrations');
      expect(rows[0].n).toBe(KNOWN);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

describe('assertMigrated', () => {
  test('a database never migrated is refused, naming the command that migrates it', async () => {
    const url = await server.database();
    const failure = await assertMigrated(url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaVersionError);
    expect(failure).toMatchObject({ code: 'schema_out_of_date', applied: 0, known: KNOWN, retryable: false });
    expect((failure as Error).message).toContain('plugboard db migrate --postgres URL');
  });

  test('a database migrated by newer code is refused by assertMigrated and by migrate, saying so', async () => {
    const url = await server.database();
    await migrate(url);
    await withPool(url, (pool) =>
      pool.query("INSERT INTO plugboard_migrations (version, name) VALUES ($1, 'from_the_future')", [KNOWN + 1]),
    );
    // One after the other: a second call's rejection must not be left unhandled while the first is awaited.
    for (const refused of [() => assertMigrated(url), () => migrate(url)]) {
      const failure = await refused().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SchemaVersionError);
      expect(failure).toMatchObject({ code: 'schema_too_new', applied: KNOWN + 1, known: KNOWN });
      expect((failure as Error).message).toMatch(
        new RegExp(`newer than migration ${KNOWN}, the newest this code knows`),
      );
    }
    await withPool(url, async (pool) => {
      const { rows } = await pool.query('SELECT max(version) AS v FROM plugboard_migrations');
      expect(rows[0].v).toBe(KNOWN + 1);
    });
  });
});

describe('reaching the server', () => {
  test('an unreachable server fails typed, naming it with the password masked', async () => {
    const url = `postgres://ops:hunter2-secret@127.0.0.1:${await freePort()}/state`;
    const failure = await migrate(url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    expect((failure as Error).message).toMatch(
      /^PostgreSQL at postgres:\/\/ops:\*\*\*@127\.0\.0\.1:\d+\/state cannot be reached: .*ECONNREFUSED/,
    );
    expect(`${(failure as Error).message}${(failure as Error).stack}`).not.toContain('hunter2');
  });

  test('a server that takes the connection and never answers fails typed once connect_timeout has passed', async () => {
    // A host that stopped answering: the connection opens, nothing ever comes back.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const failure = await migrate(`postgres://ops:hunter2-secret@127.0.0.1:${port}/state?connect_timeout=1`).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect((failure as Error).message).toMatch(
        /^PostgreSQL at postgres:\/\/ops:\*\*\*@127\.0\.0\.1:\d+\/state cannot be reached: .*timeout/,
      );
      expect(`${(failure as Error).message}${(failure as Error).stack}`).not.toContain('hunter2');
      expect(held.length).toBeGreaterThan(0);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('a connect_timeout that is not whole seconds is refused naming the field', async () => {
    const failure = await migrate('postgres://x:pw-secret@127.0.0.1:1/state?connect_timeout=soon').catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(InvalidInputError);
    expect((failure as Error).message).toMatch(/url: connect_timeout must be a whole number of seconds/);
    expect((failure as Error).message).not.toContain('pw-secret');
  });

  test('a URL that is not a postgres:// URL is refused naming the field, without quoting it', async () => {
    await expect(migrate('redis://:pw-secret@127.0.0.1:1')).rejects.toThrow(
      /url: must be a postgres:\/\/ URL, not redis:\/\//,
    );
    const failure = await migrate('postgres://x:pw-secret@[bad').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidInputError);
    expect((failure as Error).message).not.toContain('pw-secret');
  });
});
