import { once } from 'node:events';
import { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { cancelRun, followRun, listRuns, showRun, startWorker, submitRun, WRITES_QUEUE } from '../src/index.js';
import { workerChild } from './support/children.js';
import { fleet, insurance, insuranceSubmission, runRows } from './support/fleet.js';
import { hanging } from './support/upstream.js';

const state = fleet();

function submission(
  action: string,
  input: unknown,
  baseUrl = state.simulator.url,
  extra: Record<string, unknown> = {},
) {
  return insuranceSubmission(state, action, input, { connection: { baseUrl }, extra });
}

function worker(lockDurationMs?: number) {
  return startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [insurance],
    concurrency: 1,
    resolveCredential: () => state.simulator.apiKey,
    ...(lockDurationMs ? { lockDurationMs, metricsPort: 0, metricsHost: '127.0.0.1' } : {}),
  });
}

/** Follows run `id`, resolving once its follower reads the queue's events (a blocking XREAD in Redis). */
async function watching(id: string) {
  const followed = followRun({ redis: state.redis.url, postgres: state.db.url, id });
  await expect.poll(async () => String(await state.client.client('LIST'))).toContain('cmd=xread');
  return { followed };
}

const statusOf = async (id: string) => (await showRun({ postgres: state.db.url, id })).status;

describe('listRuns and showRun', () => {
  it('lists runs newest first, by status, bounded; shows one; refuses a bad limit and an unknown id', async () => {
    const first = await submitRun(submission('travel_policies.list', {}));
    const second = await submitRun(submission('travel_policies.create', { traveller: 'a' }));
    const listed = await listRuns({ postgres: state.db.url });
    expect(listed.map((run) => run.id)).toEqual([second.id, first.id]);
    expect(listed.map((run) => run.status)).toEqual(['queued', 'queued']);
    expect(await listRuns({ postgres: state.db.url, limit: 1 })).toHaveLength(1);
    expect(await listRuns({ postgres: state.db.url, status: 'running' })).toEqual([]);
    expect(await showRun({ postgres: state.db.url, id: first.id })).toMatchObject({
      id: first.id,
      status: 'queued',
      connector: 'insurance',
      action: 'travel_policies.list',
      direction: 'source',
    });
    await expect(listRuns({ postgres: state.db.url, limit: 0 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('limit'),
    });
    await expect(listRuns({ postgres: state.db.url, status: 'gone' as never })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('status'),
    });
    await expect(showRun({ postgres: state.db.url, id: 'run-nope' })).rejects.toMatchObject({ code: 'run_unknown' });
  });

  it("shows a write left running by a worker that was killed: what the operator checks, with the run's key", async () => {
    const provider = await hanging();
    const child = await workerChild(state.redis.url, state.db.url, state.simulator.apiKey, 1_000);
    const events = new QueueEvents(WRITES_QUEUE, { connection: { url: state.redis.url, maxRetriesPerRequest: null } });
    let second: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      await events.waitUntilReady();
      const { id } = await submitRun(
        submission('travel_policies.create', { traveller: 'held' }, provider.url, { idempotencyKey: 'policy-1' }),
      );
      await provider.receivedAtLeast(1);
      // While its worker lives, the write is running and needs nobody.
      expect(await showRun({ postgres: state.db.url, redis: state.redis.url, id })).not.toHaveProperty('attention');
      const exited = once(child.process, 'exit');
      child.process.kill('SIGKILL');
      await exited;
      const failed = new Promise((resolve) => events.on('failed', ({ jobId }) => jobId === id && resolve(jobId)));
      second = await worker(1_000);
      await failed;
      const shown = await showRun({ postgres: state.db.url, redis: state.redis.url, id });
      expect(shown.status).toBe('running');
      expect(shown.attention).toContain('plugboard idempotency show "policy-1" --postgres URL');
      expect(shown.attention).toContain('plugboard idempotency settle "policy-1" --as succeeded|failed');
      // The worker that found it counts one stalled run.
      const metrics = await (await fetch(second.metricsUrl!)).text();
      expect(metrics).toMatch(/^plugboard_stalled_runs_total 1$/m);
    } finally {
      await second?.close();
      await events.close();
      await child.stop();
      await provider.close();
    }
  });
});

describe('cancelRun', () => {
  it('removes a queued run from its queue: status cancelled, nothing sent', async () => {
    const { id } = await submitRun(submission('travel_policies.create', { traveller: 'q' }));
    const { followed } = await watching(id);
    const cancelled = await cancelRun({ redis: state.redis.url, postgres: state.db.url, id });
    expect(cancelled).toMatchObject({ outcome: 'cancelled', run: { id, status: 'cancelled' } });
    // Its follower learns it ended.
    expect(await followed).toMatchObject({ id, status: 'cancelled' });
    expect(await state.queues.writes.count()).toBe(0);
    const running = await worker();
    try {
      // A run submitted after it is taken and finished: the cancelled one was never there to take.
      const after = await submitRun({ ...submission('travel_policies.list', {}), follow: {} });
      expect(after.run?.status).toBe('succeeded');
      expect(state.simulator.counters().policiesCreated).toBe(0);
      expect(await cancelRun({ redis: state.redis.url, postgres: state.db.url, id })).toMatchObject({
        outcome: 'ended',
      });
    } finally {
      await running.close();
    }
  });

  it('reaches a running run through its signal: the provider call in flight is aborted, status cancelled', async () => {
    const provider = await hanging();
    const running = await worker();
    try {
      const { id } = await submitRun(submission('travel_policies.create', { traveller: 'r' }, provider.url));
      await provider.receivedAtLeast(1);
      expect(await statusOf(id)).toBe('running');
      const asked = await cancelRun({ redis: state.redis.url, postgres: state.db.url, id });
      expect(asked.outcome).toBe('requested');
      await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('cancelled');
      const [row] = await runRows(state.db);
      expect(row).toMatchObject({ id, status: 'cancelled', error_code: null });
      expect(row.completed_at).not.toBeNull();
      // Submitted again, it is a new attempt that the old cancel does not stop.
      const again = await submitRun({ ...submission('travel_policies.create', { traveller: 'r' }), follow: {} });
      expect(again.run).toMatchObject({ status: 'succeeded', retryCount: 1 });
    } finally {
      await running.close();
      await provider.close();
    }
  });
});
