import { once } from 'node:events';
import { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { startWorker, submitRun, WRITES_QUEUE } from '../src/index.js';
import { workerChild } from './support/children.js';
import { fleet, insurance, runRows } from './support/fleet.js';
import { hanging, pairs } from './support/upstream.js';

const state = fleet();

function create(traveller: string, baseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    redis: state.redis.url,
    postgres: state.db.pools[0],
    connectors: [insurance],
    connector: 'insurance',
    action: 'travel_policies.create',
    input: { traveller },
    connection: { id: 'conn-1', baseUrl },
    ...extra,
  };
}

describe('a fleet of worker processes', () => {
  it('two worker processes share 20 runs: each runs part, every run succeeds exactly once', async () => {
    // Each worker takes one run at a time, and the provider answers two requests in flight at once:
    // every pair answered is one request of each worker.
    const provider = await pairs(state.simulator.url);
    const args = [state.redis.url, state.db.url, state.simulator.apiKey] as const;
    const children = await Promise.all([workerChild(...args), workerChild(...args)]);
    try {
      // A first run straight to the provider: the connection's shared budget has seen an answer.
      const first = await submitRun({ ...create('first', state.simulator.url), follow: {} });
      expect(first.run?.status).toBe('succeeded');
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, index) => submitRun({ ...create(`t${index}`, provider.url), follow: {} })),
      );
      expect(runs.map((run) => run.run?.status)).toEqual(Array(20).fill('succeeded'));
      expect(state.simulator.counters().policiesCreated).toBe(21);
      expect(provider.received).toBe(20);
      const taken = children.map((child) =>
        child.messages.filter((m) => m.type === 'active' && m.id !== first.id).map((m) => m.id),
      );
      expect(taken.map((ids) => ids.length)).toEqual([10, 10]);
      expect(new Set(taken.flat()).size).toBe(20);
      const rows = await runRows(state.db);
      expect(rows.map((row) => [row.status, row.records_processed])).toEqual(Array(21).fill(['succeeded', 1]));
    } finally {
      await Promise.all(children.map((child) => child.stop()));
      await provider.close();
    }
  });

  it('a write whose worker is killed mid-write is not run again by a second worker: it stays for an operator', async () => {
    const provider = await hanging();
    const child = await workerChild(state.redis.url, state.db.url, state.simulator.apiKey, 1_000);
    const events = new QueueEvents(WRITES_QUEUE, { connection: { url: state.redis.url, maxRetriesPerRequest: null } });
    let second: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      await events.waitUntilReady();
      const { id } = await submitRun(create('held', provider.url, { idempotencyKey: 'policy-1' }));
      await provider.receivedAtLeast(1);
      const exited = once(child.process, 'exit');
      child.process.kill('SIGKILL');
      await exited;
      const failed = new Promise<string>((resolve) =>
        events.on('failed', ({ jobId, failedReason }) => jobId === id && resolve(failedReason)),
      );
      second = await startWorker({
        redis: state.redis.url,
        postgres: state.db.url,
        connectors: [insurance],
        concurrency: 1,
        resolveCredential: () => state.simulator.apiKey,
        lockDurationMs: 1_000,
      });
      expect(await failed).toMatch(/stalled more than allowable limit/);
      expect(provider.received).toBe(1);
      expect(second.workers.writes.opts.maxStalledCount).toBe(0);
      const [row] = await runRows(state.db);
      expect(row).toMatchObject({ id, status: 'running' });
      const { rows } = await state.db.pools[0].query('SELECT record FROM plugboard_idempotency_keys');
      expect(rows.map((r) => r.record.state)).toEqual(['running']);
    } finally {
      await second?.close();
      await events.close();
      await child.stop();
      await provider.close();
    }
  });
});
