import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError } from '@plugboard/sdk';
import { type LoadResult, loadPlugins } from '@plugboard/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addSchedule, type StartWorkerOptions, startWorker, submitRun } from '../src/index.js';
import { npmFolder, type PluginFolder } from '../../runtime/test/support/plugins.js';
import { fleet, runRows } from './support/fleet.js';
import { pidConnector } from './support/pid-plugins.js';

/**
 * Isolated plugins kept warm on a worker, with real plugin processes, Redis and PostgreSQL: each
 * run's record says which process served it (its pid), so the tests see processes kept,
 * replaced after N runs or past a memory ceiling, and ended past the count bound.
 */

const state = fleet();

/** An HTTP server on 127.0.0.1 that holds every request until `open()`, counting them. */
async function gate() {
  const waiting: ServerResponse[] = [];
  const waiters: Array<{ count: number; wake: () => void }> = [];
  let opened = false;
  let received = 0;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  const server = createServer((req, res) => {
    req.resume();
    received += 1;
    for (const waiter of waiters.filter((w) => received >= w.count))
      waiters.splice(waiters.indexOf(waiter), 1)[0]!.wake();
    if (opened) answer(res);
    else waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receivedAtLeast: (count: number) =>
      received >= count ? Promise.resolve() : new Promise<void>((wake) => waiters.push({ count, wake })),
    open() {
      opened = true;
      for (const res of waiting.splice(0)) answer(res);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let folder: PluginFolder;
let checked: LoadResult;
beforeAll(async () => {
  folder = await npmFolder([
    { name: 'connector-alpha', entry: pidConnector('alpha') },
    { name: 'connector-beta', entry: pidConnector('beta') },
  ]);
  // The submitter checks runs against the same packages, imported.
  checked = await loadPlugins(folder.dir);
});
afterAll(async () => {
  await folder?.cleanup();
});

function worker(options: Partial<StartWorkerOptions> = {}) {
  return startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    plugins: folder.dir,
    concurrency: 1,
    resolveCredential: () => 'token',
    ...options,
  });
}

/** Submits a run (on a connection of its own: runs in flight do not share a budget) and follows it; answers the pid its record names. */
async function pidOf(connector: string, action: string, n: number, baseUrl = 'http://127.0.0.1:9'): Promise<number> {
  const pids: number[] = [];
  const { run } = await submitRun({
    redis: state.redis.url,
    postgres: state.db.url,
    plugins: checked.loaded,
    connector,
    action,
    input: { n },
    connection: { id: `conn-${n}`, baseUrl },
    follow: { onPage: (page) => pids.push(...page.records.map((record) => (record as { pid: number }).pid)) },
  });
  expect(run?.status).toBe('succeeded');
  expect(pids).toHaveLength(1);
  return pids[0]!;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startWorker({ plugins }) keeps plugin processes warm', () => {
  it('serves runs from one process until recycleAfterRuns, then from a fresh one; no run lost', async () => {
    const running = await worker({ recycleAfterRuns: 3 });
    const pids: number[] = [];
    try {
      for (let n = 1; n <= 7; n += 1) pids.push(await pidOf('alpha', 'pid.get', n));
    } finally {
      await running.close();
    }
    const [a, b, c] = [pids[0]!, pids[3]!, pids[6]!];
    expect(pids).toEqual([a, a, a, b, b, b, c]);
    expect(new Set([a, b, c]).size).toBe(3);
    expect((await runRows(state.db)).map((row) => row.status)).toEqual(Array(7).fill('succeeded'));
    expect([a, b, c].filter(alive)).toEqual([]);
  });

  it('lets the runs a recycled process holds finish while a fresh one takes the next', async () => {
    const provider = await gate();
    const running = await worker({ recycleAfterRuns: 2, concurrency: 3 });
    try {
      const runs = [1, 2, 3].map((n) => pidOf('alpha', 'pid.held', n, provider.url));
      // All three in flight at once: two on the recycled process, one on the fresh one.
      await provider.receivedAtLeast(3);
      provider.open();
      const pids = await Promise.all(runs);
      const counts = [...new Set(pids)].map((pid) => pids.filter((seen) => seen === pid).length).sort();
      expect(counts).toEqual([1, 2]);
      const fresh = pids.find((pid) => pids.filter((seen) => seen === pid).length === 1)!;
      expect(await pidOf('alpha', 'pid.get', 4)).toBe(fresh);
    } finally {
      await running.close();
      await provider.close();
    }
    expect((await runRows(state.db)).map((row) => row.status)).toEqual(Array(4).fill('succeeded'));
  });

  it('replaces a process whose memory passed memoryCeilingMb after a run', async () => {
    const running = await worker({ memoryCeilingMb: 160 });
    try {
      const first = await pidOf('alpha', 'pid.get', 1);
      expect(await pidOf('alpha', 'pid.get', 2)).toBe(first);
      // 192 MB held outside the heap: past the ceiling once this run ended.
      expect(await pidOf('alpha', 'memory.hold', 3)).toBe(first);
      const next = await pidOf('alpha', 'pid.get', 4);
      expect(next).not.toBe(first);
      expect(await pidOf('alpha', 'pid.get', 5)).toBe(next);
    } finally {
      await running.close();
    }
  });

  it('starts a plugin on its first run and keeps at most maxPlugins, ending the least recently used', async () => {
    const running = await worker({ maxPlugins: 1 });
    try {
      const alpha = await pidOf('alpha', 'pid.get', 1);
      expect(await pidOf('alpha', 'pid.get', 2)).toBe(alpha);
      const beta = await pidOf('beta', 'pid.get', 3);
      expect(alive(alpha)).toBe(false);
      const again = await pidOf('alpha', 'pid.get', 4);
      expect(alive(beta)).toBe(false);
      expect(new Set([alpha, beta, again]).size).toBe(3);
    } finally {
      await running.close();
    }
  });

  it("checks a schedule's tick on the warm processes, and runs it there", async () => {
    const running = await worker();
    try {
      await pidOf('alpha', 'pid.get', 1);
      await addSchedule({
        redis: state.redis.url,
        postgres: state.db.url,
        plugins: checked.loaded,
        connector: 'alpha',
        source: 'pid.get',
        input: { n: 2 },
        connection: { id: 'conn-tick', baseUrl: 'http://127.0.0.1:9' },
        intervalMinutes: 5,
      });
      // BullMQ ticks once as the scheduler is put in: the tick's run is the second row.
      await vi.waitFor(
        async () => {
          const rows = await runRows(state.db);
          expect(rows.map((row) => [row.connection_id, row.status])).toContainEqual(['conn-tick', 'succeeded']);
        },
        { timeout: 20_000 },
      );
    } finally {
      await running.close();
      await state.db.pools[0].query('TRUNCATE plugboard_schedules');
    }
  });

  it('refuses a bound that is not a whole number of 1 or more before reaching anything', async () => {
    for (const field of ['recycleAfterRuns', 'memoryCeilingMb', 'maxPlugins'] as const) {
      const refused = await worker({ [field]: 0, redis: 'redis://127.0.0.1:1' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidInputError);
      expect((refused as InvalidInputError).message).toContain(field);
    }
  });
});
