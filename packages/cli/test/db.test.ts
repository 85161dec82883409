import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../sdk/test/support/redis.js';
import { type PostgresServer, startPostgres } from '../../worker/test/support/postgres.js';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe('plugboard db migrate', () => {
  test('applies the migrations, prints what it applied, and applies nothing the second time', async () => {
    const url = await server.database();
    const first = bufferIo({}, true);
    expect(await runCli(['db', 'migrate', '--postgres', url], first.io, { pack: new Map() })).toBe(0);
    expect(JSON.parse(first.stdout())).toEqual({
      server: url,
      applied: [
        { version: 1, name: 'state' },
        { version: 2, name: 'runs' },
        { version: 3, name: 'schedules' },
        { version: 4, name: 'run_error_status' },
        { version: 5, name: 'trigger_deliveries' },
        { version: 6, name: 'approvals' },
        { version: 7, name: 'trigger_deliveries_received' },
      ],
      version: 7,
    });
    const again = bufferIo({ PLUGBOARD_POSTGRES_URL: url }, true);
    expect(await runCli(['db', 'migrate'], again.io, { pack: new Map() })).toBe(0);
    expect(JSON.parse(again.stdout())).toEqual({ server: url, applied: [], version: 7 });
    expect(first.stderr() + again.stderr()).toBe('');
  });

  test('an unreachable server: one line naming it, password masked, no stack, exit 1', async () => {
    const port = await freePort();
    const { io, stdout, stderr } = bufferIo({}, true);
    const argv = ['db', 'migrate', '--postgres', `postgres://ops:hunter2-secret@127.0.0.1:${port}/state`];
    expect(await runCli(argv, io, { pack: new Map() })).toBe(1);
    expect(stdout()).toBe('');
    expect(stderr()).toMatch(
      new RegExp(
        `^plugboard: PostgreSQL at postgres://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}/state cannot be reached: .*ECONNREFUSED[^\\n]*\\n$`,
      ),
    );
    expect(stderr()).not.toContain('hunter2');
  });

  test('a database migrated by a newer Plugboard: says so and exits 6 (a person must look; trying again changes nothing)', async () => {
    const url = await server.database();
    expect(await runCli(['db', 'migrate', '--postgres', url], bufferIo({}, true).io, { pack: new Map() })).toBe(0);
    const pool = new pg.Pool({ connectionString: url });
    await pool.query("INSERT INTO plugboard_migrations (version, name) VALUES (999, 'from_the_future')");
    await pool.end();
    const { io, stderr } = bufferIo({}, true);
    expect(await runCli(['db', 'migrate', '--postgres', url], io, { pack: new Map() })).toBe(6);
    expect(stderr()).toMatch(/newer than migration \d+, the newest this code knows/);
  });

  test('without a database to migrate, says how to give one', async () => {
    const { io, stderr } = bufferIo({}, true);
    expect(await runCli(['db', 'migrate'], io, { pack: new Map() })).toBe(2);
    expect(stderr()).toContain('db migrate needs --postgres URL, or PLUGBOARD_POSTGRES_URL');
  });
});
