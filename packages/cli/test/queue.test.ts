import { startInsuranceSimulator, type InsuranceSimulator } from '@plugboard/simulator-insurance';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { freePort, type RedisServer } from '../../sdk/test/support/redis.js';
import { runCli } from '../src/index.js';
import { useFleetServers } from './fleet-servers.js';
import { bufferIo, PACK } from './support.js';

const servers = useFleetServers();
let redis: RedisServer;
let url: string;
let simulator: InsuranceSimulator;

beforeAll(async () => {
  redis = servers.redis;
  url = await servers.database();
});
beforeEach(async () => {
  simulator = await startInsuranceSimulator();
});
afterEach(async () => {
  await simulator?.close();
});

const pack = new Map([['insurance', PACK.get('insurance')!]]);

function submit(action: string, input: unknown, ...more: string[]) {
  const buffered = bufferIo({}, false);
  const argv = ['submit', 'insurance', action, '--input', JSON.stringify(input), '--base-url', simulator.url];
  const done = runCli([...argv, '--redis', redis.url, '--postgres', url, ...more], buffered.io, { pack });
  return { done, ...buffered };
}

describe('plugboard submit and plugboard worker', () => {
  test('a worker runs what submit queued; submit prints the records as run does; SIGTERM drains it', async () => {
    const controller = new AbortController();
    const worker = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey }, false);
    const argv = ['worker', '--redis', redis.url, '--postgres', url, '--concurrency', '2'];
    const running = runCli(argv, worker.io, { pack, signal: controller.signal });
    try {
      await vi.waitFor(() => expect(worker.stderr()).toContain('worker ready'), { timeout: 20_000 });
      const created = submit('travel_policies.create', { traveller: 'ada' }, '--idempotency-key', 'p-1');
      expect(await created.done).toBe(0);
      expect(JSON.parse(created.stdout())).toMatchObject({ traveller: 'ada' });
      const listed = submit('travel_policies.list', {});
      expect(await listed.done).toBe(0);
      expect(
        listed
          .stdout()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).traveller),
      ).toEqual(['ada']);
      const detached = submit('travel_policies.list', { page_size: 5 }, '--detach');
      expect(await detached.done).toBe(0);
      expect(JSON.parse(detached.stdout())).toEqual({ id: expect.stringMatching(/^run-/), queued: true });
    } finally {
      controller.abort();
      expect(await running).toBe(0);
    }
    expect(worker.stderr()).toContain('draining');
  });

  test('a worker and a submission with --plugins run the connector isolated, in processes of their own', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'plugboard-plugins-'));
    await mkdir(join(folder, 'node_modules', '@plugboard'), { recursive: true });
    await symlink(
      fileURLToPath(new URL('../../../connectors/insurance', import.meta.url)),
      join(folder, 'node_modules', '@plugboard', 'connector-insurance'),
      'dir',
    );
    const controller = new AbortController();
    const worker = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey }, false);
    const argv = ['worker', '--redis', redis.url, '--postgres', url, '--plugins', folder];
    argv.push('--recycle-after', '1', '--memory-ceiling', '512', '--max-plugins', '2');
    const running = runCli(argv, worker.io, { pack: new Map(), signal: controller.signal });
    try {
      await vi.waitFor(() => expect(worker.stderr()).toContain('worker ready'), { timeout: 20_000 });
      const buffered = bufferIo({}, false);
      const submitted = runCli(
        [
          'submit',
          'insurance',
          'travel_policies.create',
          '--input',
          '{"traveller":"iso"}',
          '--base-url',
          simulator.url,
          '--plugins',
          folder,
          '--redis',
          redis.url,
          '--postgres',
          url,
        ],
        buffered.io,
        { pack: new Map() },
      );
      expect(await submitted).toBe(0);
      expect(JSON.parse(buffered.stdout())).toMatchObject({ traveller: 'iso' });
      expect(simulator.counters().policiesCreated).toBe(1);
    } finally {
      controller.abort();
      expect(await running).toBe(0);
      await rm(folder, { recursive: true, force: true });
    }
  });

  test('a worker with --sink postgres writes a read into the sink in PostgreSQL; another sink exits 2', async () => {
    const controller = new AbortController();
    const worker = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey }, false);
    const argv = ['worker', '--redis', redis.url, '--postgres', url, '--sink', 'postgres'];
    const running = runCli(argv, worker.io, { pack, signal: controller.signal });
    const pool = new pg.Pool({ connectionString: url });
    try {
      await vi.waitFor(() => expect(worker.stderr()).toContain('worker ready'), { timeout: 20_000 });
      expect(await submit('travel_policies.create', { traveller: 'sunk' }, '--idempotency-key', 'p-sink').done).toBe(0);
      expect(await submit('travel_policies.list', { page_size: 3 }).done).toBe(0);
      const { rows } = await pool.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_insurance\\_travel\\_policies\\_list%'",
      );
      expect(rows).toHaveLength(1);
      const landed = await pool.query(`SELECT record, writes FROM "${rows[0]!.name}"`);
      expect(landed.rows.map((row) => [row.record.traveller, row.writes])).toContainEqual(['sunk', 1]);
    } finally {
      controller.abort();
      expect(await running).toBe(0);
      await pool.end();
    }
    const other = bufferIo({}, true);
    expect(
      await runCli(['worker', '--redis', redis.url, '--postgres', url, '--sink', 'jsonl'], other.io, { pack }),
    ).toBe(2);
    expect(other.stderr()).toContain('--sink');
  });

  test('a followed run the provider refused exits 4, as run does, never 1 (which scripts retry)', async () => {
    const controller = new AbortController();
    const worker = bufferIo({ PLUGBOARD_CREDENTIAL: 'not-the-key' }, false);
    const argv = ['worker', '--redis', redis.url, '--postgres', url];
    const running = runCli(argv, worker.io, { pack, signal: controller.signal });
    try {
      await vi.waitFor(() => expect(worker.stderr()).toContain('worker ready'), { timeout: 20_000 });
      const refused = submit('travel_policies.list', { page_size: 2 });
      expect(await refused.done).toBe(4);
      expect(refused.stderr()).toMatch(/failed: .*401/);
      expect(refused.stderr()).not.toContain('not-the-key');
    } finally {
      controller.abort();
      expect(await running).toBe(0);
    }
  });

  test('a worker refuses a plugin bound that is not a whole number of 1 or more: exit 2, naming the flag', async () => {
    for (const flag of ['--recycle-after', '--memory-ceiling', '--max-plugins']) {
      const refused = bufferIo({}, true);
      const argv = ['worker', '--redis', redis.url, '--postgres', url, '--plugins', '.', flag, '0'];
      expect(await runCli(argv, refused.io, { pack: new Map() })).toBe(2);
      expect(refused.stderr()).toContain(flag);
    }
  });

  test('bad input exits 2 and a missing approval 3, with nothing queued', async () => {
    const bad = submit('travel_policies.list', { page_size: 'ten' });
    expect(await bad.done).toBe(2);
    expect(bad.stderr()).toContain('page_size');
    const unapproved = submit('travel_policies.create', { traveller: 'x' }, '--environment', 'production');
    expect(await unapproved.done).toBe(3);
    // A run is recorded before it is queued: no row, nothing queued.
    const pool = new pg.Pool({ connectionString: url });
    try {
      const { rows } = await pool.query(
        "SELECT id FROM plugboard_runs WHERE status = 'queued' AND action = 'travel_policies.create'",
      );
      expect(rows).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  test('an unreachable Redis or PostgreSQL: one line naming which and where, password masked, exit 1', async () => {
    const port = await freePort();
    const noRedis = bufferIo({}, true);
    const argv = ['submit', 'insurance', 'travel_policies.list', '--base-url', simulator.url, '--postgres', url];
    expect(await runCli([...argv, '--redis', `redis://ops:hunter2@127.0.0.1:${port}`], noRedis.io, { pack })).toBe(1);
    expect(noRedis.stderr()).toMatch(
      new RegExp(
        `^plugboard: Redis at redis://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port} cannot be reached: .*ECONNREFUSED[^\\n]*\\n$`,
      ),
    );
    const noPostgres = bufferIo({}, true);
    const argv2 = ['worker', '--redis', redis.url, '--postgres', `postgres://ops:hunter2@127.0.0.1:${port}/x`];
    expect(await runCli(argv2, noPostgres.io, { pack })).toBe(1);
    expect(noPostgres.stderr()).toMatch(
      new RegExp(
        `^plugboard: PostgreSQL at postgres://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x cannot be reached: [^\\n]*\\n$`,
      ),
    );
    expect(noRedis.stderr() + noPostgres.stderr()).not.toContain('hunter2');
  });
});
