import { type InsuranceSimulator, startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import type { RedisServer } from '../../sdk/test/support/redis.js';
import { hanging, type Upstream } from '../../worker/test/support/upstream.js';
import { runCli } from '../src/index.js';
import { useFleetServers } from './fleet-servers.js';
import { bufferIo, PACK } from './support.js';

const servers = useFleetServers();
let redis: RedisServer;
let url: string;
let simulator: InsuranceSimulator;

beforeAll(() => {
  redis = servers.redis;
});
beforeEach(async () => {
  // A database of each test's own: its runs and keys only.
  url = await servers.database();
  simulator = await startInsuranceSimulator();
});
afterEach(async () => {
  await simulator?.close();
});

const pack = new Map([['insurance', PACK.get('insurance')!]]);
const json = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

async function cli(argv: string[], tty = false) {
  const buffered = bufferIo({}, false);
  if (tty) buffered.io.stdout.isTTY = true;
  const code = await runCli(argv, buffered.io, { pack });
  return { code, stdout: buffered.stdout(), stderr: buffered.stderr() };
}

async function submit(action: string, input: unknown, baseUrl: string, ...more: string[]): Promise<string> {
  const argv = ['submit', 'insurance', action, '--input', JSON.stringify(input), '--base-url', baseUrl, '--detach'];
  const done = await cli([...argv, '--redis', redis.url, '--postgres', url, ...more]);
  expect(done.code).toBe(0);
  return JSON.parse(done.stdout).id;
}

/** A `plugboard worker` with /metrics on a free port of 127.0.0.1, until `stop()`. */
async function worker() {
  const controller = new AbortController();
  const output = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey }, false);
  const argv = [
    'worker',
    '--redis',
    redis.url,
    '--postgres',
    url,
    '--metrics-port',
    '0',
    '--metrics-host',
    '127.0.0.1',
  ];
  const running = runCli(argv, output.io, { pack, signal: controller.signal });
  await vi.waitFor(() => expect(output.stderr()).toContain('worker ready'), { timeout: 20_000 });
  const metrics = /metrics at (http:\/\/[^\s"]+)/.exec(output.stderr())?.[1];
  return {
    metrics: metrics!,
    async stop() {
      controller.abort();
      expect(await running).toBe(0);
    },
  };
}

const statusOf = async (id: string) =>
  JSON.parse((await cli(['runs', 'show', id, '--postgres', url, '--json'])).stdout).status;

describe('plugboard runs', () => {
  test('list, show and cancel a queued run; bad options exit 2 before anything is read', async () => {
    const read = await submit('travel_policies.list', {}, simulator.url);
    const write = await submit('travel_policies.create', { traveller: 'q' }, simulator.url);
    const listed = await cli(['runs', 'list', '--postgres', url]);
    expect(listed.code).toBe(0);
    expect(json(listed.stdout).map((run) => [run.id, run.status])).toEqual([
      [write, 'queued'],
      [read, 'queued'],
    ]);
    const table = await cli(['runs', 'list', '--postgres', url, '--limit', '1'], true);
    expect(table.stdout).toMatch(new RegExp(`^${write}  queued  insurance travel_policies.create  0 records  `));
    const shown = await cli(['runs', 'show', read, '--postgres', url, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: read, status: 'queued', direction: 'source' });
    const cancelled = await cli(['runs', 'cancel', write, '--postgres', url, '--redis', redis.url]);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toEqual({ id: write, outcome: 'cancelled', status: 'cancelled' });
    const only = await cli(['runs', 'list', '--postgres', url, '--status', 'cancelled']);
    expect(json(only.stdout).map((run) => run.id)).toEqual([write]);
    expect((await cli(['runs', 'list', '--postgres', url, '--limit', '0'])).code).toBe(2);
    expect((await cli(['runs', 'cancel', write, '--postgres', url])).stderr).toContain('--redis URL');
    const unknown = await cli(['runs', 'show', 'run-nope', '--postgres', url]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('run_unknown');
    // Nothing is left on the queue for the next test's worker.
    await cli(['runs', 'cancel', read, '--postgres', url, '--redis', redis.url]);
    expect(await statusOf(read)).toBe('cancelled');
  });

  test("cancels a running write through its worker's signal; the worker's /metrics count it", async () => {
    const provider: Upstream = await hanging();
    const running = await worker();
    try {
      const id = await submit('travel_policies.create', { traveller: 'r' }, provider.url);
      await provider.receivedAtLeast(1);
      const asked = await cli(['runs', 'cancel', id, '--postgres', url, '--redis', redis.url]);
      expect(JSON.parse(asked.stdout)).toMatchObject({ id, outcome: 'requested' });
      await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('cancelled');
      const metrics = await (await fetch(running.metrics)).text();
      expect(metrics).toMatch(/^plugboard_runs_total\{status="cancelled"\} 1$/m);
    } finally {
      await running.stop();
      await provider.close();
    }
  });
});

describe('plugboard idempotency --postgres', () => {
  test("shows and settles a write's key kept in the fleet's PostgreSQL", async () => {
    const provider: Upstream = await hanging();
    const running = await worker();
    try {
      const id = await submit('travel_policies.create', { traveller: 'k' }, provider.url, '--idempotency-key', 'p-1');
      await provider.receivedAtLeast(1);
      const shown = await cli(['idempotency', 'show', 'p-1', '--postgres', url]);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        key: 'p-1',
        state: 'running',
        action: 'travel_policies.create',
      });
      const settle = (reason: string, ...more: string[]) =>
        cli([
          'idempotency',
          'settle',
          'p-1',
          '--as',
          'failed',
          '--by',
          'ops',
          '--reason',
          reason,
          ...more,
          '--postgres',
          url,
        ]);
      const young = await settle('r');
      expect(young.code).not.toBe(0);
      const settled = await settle('the provider shows no policy', '--force');
      expect(settled.code).toBe(0);
      expect(JSON.parse(settled.stdout)).toMatchObject({
        key: 'p-1',
        state: 'released',
        decisions: [expect.objectContaining({ by: 'ops', reason: 'the provider shows no policy' })],
      });
      await cli(['runs', 'cancel', id, '--postgres', url, '--redis', redis.url]);
      await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('cancelled');
      const both = await cli(['idempotency', 'show', 'p-1', '--postgres', url, '--state', '/nowhere']);
      expect(both.code).toBe(2);
    } finally {
      await running.stop();
      await provider.close();
    }
  });
});
