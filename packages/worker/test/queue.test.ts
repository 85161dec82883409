import { InvalidInputError } from '@plugboard/sdk';
import { Queue, Worker } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import {
  createSubmitter,
  EvictionPolicyError,
  followRun,
  QueueUnavailableError,
  READS_QUEUE,
  startWorker,
  submitRun,
  WRITES_QUEUE,
} from '../src/index.js';
import { fleet, insurance, insuranceSubmission, runRows } from './support/fleet.js';
import { startRedis } from '../../sdk/test/support/redis.js';
import { held } from './support/upstream.js';

const state = fleet();

/** A worker of this process with the insurance connector, the simulator's key from its resolver. */
function worker(concurrency = 2) {
  return startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [insurance],
    concurrency,
    resolveCredential: () => state.simulator.apiKey,
  });
}

function submission(action: string, input: unknown, extra: Record<string, unknown> = {}) {
  return insuranceSubmission(state, action, input, { extra });
}

describe('submitRun and startWorker', () => {
  it('runs submitted writes and a followed read to the end: records land, rows succeeded with counts', async () => {
    const running = await worker();
    try {
      const writes = await Promise.all(
        ['a', 'b', 'c'].map((traveller) =>
          submitRun({ ...submission('travel_policies.create', { traveller }), follow: {} }),
        ),
      );
      expect(writes.map((write) => write.run?.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      expect(state.simulator.counters().policiesCreated).toBe(3);
      const pages: unknown[][] = [];
      const read = await submitRun({
        ...submission('travel_policies.list', { page_size: 2 }),
        follow: { onPage: (page) => pages.push(page.records) },
      });
      expect(pages.map((page) => page.length)).toEqual([2, 1]);
      const travellers = pages.flat().map((record) => (record as { traveller: string }).traveller);
      expect(travellers.sort()).toEqual(['a', 'b', 'c']);
      expect(read.run).toMatchObject({
        id: read.id,
        status: 'succeeded',
        connector: 'insurance',
        action: 'travel_policies.list',
        connectionId: 'conn-1',
        recordsReceived: 3,
        recordsProcessed: 3,
        recordsFailed: 0,
        retryCount: 0,
        error: null,
      });
      expect(read.run?.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await running.close();
    }
  });

  it('a run nobody follows sends no page through Redis; its row counts every record', async () => {
    const running = await worker();
    try {
      await submitRun({ ...submission('travel_policies.create', { traveller: 'e' }), follow: {} });
      const { id } = await submitRun(submission('travel_policies.list', { page_size: 1 }));
      await vi.waitFor(
        async () =>
          expect(await runRows(state.db)).toContainEqual(expect.objectContaining({ id, status: 'succeeded' })),
        {
          timeout: 20_000,
        },
      );
      expect((await runRows(state.db)).find((row) => row.id === id)).toMatchObject({ records_processed: 1 });
      const events = await state.client.xrange(state.queues.reads.keys.events!, '-', '+');
      expect(events.filter(([, fields]) => fields.includes('progress'))).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('follows a run submitted before by its id, and drains: close() ends once the run it holds ended', async () => {
    const provider = await held(state.simulator.url);
    const running = await worker();
    try {
      const connection = { id: 'conn-1', baseUrl: provider.url };
      const { id } = await submitRun({ ...submission('travel_policies.create', { traveller: 'd' }), connection });
      // Pages are told from the moment the follower watches, which this test does not wait for.
      const followed = followRun({ redis: state.redis.url, postgres: state.db.url, id });
      await provider.receivedAtLeast(1);
      let closed = false;
      const closing = running.close().then(() => {
        closed = true;
      });
      // Both wait on the provider's answer, which the test has not let through yet.
      await new Promise((resolve) => setImmediate(resolve));
      expect(closed).toBe(false);
      provider.release();
      await closing;
      const run = await followed;
      expect(run).toMatchObject({ id, status: 'succeeded', recordsProcessed: 1 });
      expect(state.simulator.counters().policiesCreated).toBe(1);
    } finally {
      await running.close();
      await provider.close();
    }
  });

  it('queues a resubmitted run once: the same id, one job, one row', async () => {
    const first = await submitRun(submission('travel_policies.list', {}));
    const again = await submitRun(submission('travel_policies.list', {}));
    const keyed = await submitRun(submission('travel_policies.create', { traveller: 'x' }, { idempotencyKey: 'k-1' }));
    const keyedAgain = await submitRun(
      submission('travel_policies.create', { traveller: 'x' }, { idempotencyKey: 'k-1' }),
    );
    expect(again).toEqual({ id: first.id, queued: false });
    expect(first.queued).toBe(true);
    expect(keyedAgain).toEqual({ id: keyed.id, queued: false });
    expect(await state.queues.reads.getWaitingCount()).toBe(1);
    expect(await state.queues.writes.getWaitingCount()).toBe(1);
    expect((await runRows(state.db)).map((row) => row.id).sort()).toEqual([first.id, keyed.id].sort());
  });

  it('a run named by its caller (runId) is queued under that id, once; a runId that is not plain is refused before anything', async () => {
    const named = submission('travel_policies.create', { traveller: 'n' }, { idempotencyKey: 'exe_1', runId: 'exe_1' });
    expect(await submitRun(named)).toEqual({ id: 'exe_1', queued: true });
    expect(await submitRun(named)).toEqual({ id: 'exe_1', queued: false });
    expect((await state.queues.writes.getJob('exe_1'))?.data).toMatchObject({
      runId: 'exe_1',
      idempotencyKey: 'exe_1',
    });
    await expect(submitRun({ ...named, runId: 'exe:1' })).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [expect.objectContaining({ path: 'runId' })],
    });
    expect((await runRows(state.db)).map((row) => row.id)).toEqual(['exe_1']);
  });

  it('queues many runs over the connections one submitter keeps, checking each run before reaching any server', async () => {
    const connections = async () =>
      Number(/total_connections_received:(\d+)/.exec(await state.client.info('stats'))?.[1]);
    const before = await connections();
    const submitter = createSubmitter({ redis: state.redis.url, postgres: state.db.url });
    try {
      const runs = await Promise.all([
        ...Array.from({ length: 10 }, (_, index) =>
          submitter.submit({ ...submission('travel_policies.list', { page_size: index + 1 }) }),
        ),
        submitter.submit(submission('travel_policies.create', { traveller: 'y' }, { idempotencyKey: 'k-2' })),
      ]);
      expect(runs.every((run) => run.queued)).toBe(true);
      expect(await state.queues.reads.getWaitingCount()).toBe(10);
      expect(await state.queues.writes.getWaitingCount()).toBe(1);
      expect(await runRows(state.db)).toHaveLength(11);
    } finally {
      await submitter.close();
    }
    // Redis reached once, and one connection for each queue: not two for every run.
    expect((await connections()) - before).toBeLessThanOrEqual(3);
    const nowhere = createSubmitter({ redis: 'redis://127.0.0.1:1/0', postgres: state.db.url });
    await expect(nowhere.submit(submission('travel_policies.list', { page_size: 'ten' }))).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(nowhere.submit(submission('travel_policies.list', {}))).rejects.toBeInstanceOf(QueueUnavailableError);
    await nowhere.close();
  });

  it('refuses bad input, a secret setting and an unknown action before anything is queued or recorded', async () => {
    await expect(submitRun(submission('travel_policies.list', { page_size: 'ten' }))).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('page_size'),
    });
    await expect(submitRun(submission('travel_policies.list', { page_size: 'ten' }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(
      submitRun({
        ...submission('travel_policies.list', {}),
        connection: { id: 'c', baseUrl: state.simulator.url, settings: { api_token: 'x' } },
      }),
    ).rejects.toMatchObject({ code: 'invalid_connection' });
    await expect(submitRun(submission('travel_policies.delete', {}))).rejects.toMatchObject({
      code: 'unknown_action',
    });
    expect(await state.queues.reads.count()).toBe(0);
    expect(await state.queues.writes.count()).toBe(0);
    expect(await runRows(state.db)).toEqual([]);
  });

  it('fails typed, never leaves queued, a write whose worker died holding it before it started; nothing is sent', async () => {
    const { id } = await submitRun(submission('travel_policies.create', { traveller: 'z' }, { idempotencyKey: 'k-9' }));
    // A worker that takes the job and dies before anything of the run: its lock is never renewed.
    const dying = new Worker(WRITES_QUEUE, () => new Promise(() => {}), {
      connection: { url: state.redis.url },
      lockDuration: 500,
      skipLockRenewal: true,
      skipStalledCheck: true,
    });
    await new Promise((resolve) => dying.once('active', resolve));
    void dying.close(true);
    const running = await startWorker({
      redis: state.redis.url,
      postgres: state.db.url,
      connectors: [insurance],
      concurrency: 1,
      lockDurationMs: 500,
      resolveCredential: () => state.simulator.apiKey,
    });
    try {
      await vi.waitFor(
        async () =>
          expect((await runRows(state.db)).find((row) => row.id === id)).toMatchObject({
            status: 'failed',
            error_code: 'worker_lost',
          }),
        { timeout: 20_000 },
      );
      expect(state.simulator.counters().policiesCreated).toBe(0);
    } finally {
      await running.close();
    }
  });

  it('puts writes on the writes queue, whose worker never hands a stalled job to another (maxStalledCount 0)', async () => {
    const running = await worker();
    try {
      expect(running.workers.writes.opts.maxStalledCount).toBe(0);
      expect(running.workers.reads.opts.maxStalledCount).not.toBe(0);
    } finally {
      await running.close();
    }
  });

  it("pauses the queue for a provider's Retry-After instead of spending an attempt", async () => {
    // Longer than the action waits itself: the run ends with RateLimitedError and its wait.
    state.simulator.failNext({ kind: 'rate_limited', retryAfterSeconds: 3_600 });
    const running = await worker(1);
    try {
      const { id } = await submitRun(submission('travel_policies.list', {}));
      // Redis counts the pause down: it is the provider's hour, less the time since it was set.
      await vi.waitFor(async () => expect(await state.queues.reads.getRateLimitTtl()).toBeGreaterThan(0), {
        timeout: 20_000,
      });
      const ttl = await state.queues.reads.getRateLimitTtl();
      expect(ttl).toBeGreaterThan(3_540_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      const job = await state.queues.reads.getJob(id);
      expect(job?.attemptsMade).toBe(0);
      expect(await job?.getState()).toBe('waiting');
      expect(state.simulator.counters().requests).toBe(1);
      expect(state.simulator.counters().byStatus).toEqual({ '429': 1 });
      const [row] = await runRows(state.db);
      expect(row).toMatchObject({ id, status: 'queued', retry_count: 0, error_code: null });
    } finally {
      await running.close();
    }
  });

  it('refuses a Redis that may evict keys, naming the setting to change', async () => {
    await state.client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const refused = worker();
      await expect(refused).rejects.toBeInstanceOf(EvictionPolicyError);
      await expect(refused).rejects.toThrow(
        `Redis at ${state.redis.url} has maxmemory-policy allkeys-lru, which may evict queued runs and their locks; set maxmemory-policy noeviction`,
      );
    } finally {
      await state.client.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });

  it('fails typed, at once and printing nothing, a run queued while the Redis it reached is away; queues it once Redis is back', async () => {
    const gone = (await startRedis()).server!;
    const { port } = new URL(gone.url);
    const submitter = createSubmitter({ redis: gone.url, postgres: state.db.url });
    const printed = vi.spyOn(console, 'error');
    try {
      expect((await submitter.submit(submission('travel_policies.list', { page_size: 1 }))).queued).toBe(true);
      await gone.stop();
      const later = submission('travel_policies.list', { page_size: 2 });
      await expect(submitter.submit(later)).rejects.toBeInstanceOf(QueueUnavailableError);
      // Redis is reached afresh for the next run, and is still away.
      await expect(submitter.submit(later)).rejects.toThrow(/^Redis at redis:\/\/127\.0\.0\.1:\d+ cannot be reached/);
      const back = (await startRedis(Number(port))).server!;
      const reads = new Queue(READS_QUEUE, { connection: { url: back.url } });
      try {
        const queued = await submitter.submit(later);
        expect(await reads.getJobs(['waiting'])).toEqual([expect.objectContaining({ id: queued.id })]);
      } finally {
        await reads.close();
        await back.stop();
      }
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await submitter.close();
    }
  });

  it('names an unreachable Redis with its password masked', async () => {
    await expect(
      submitRun({ ...submission('travel_policies.list', {}), redis: `redis://user:hunter2@127.0.0.1:1/0` }),
    ).rejects.toBeInstanceOf(QueueUnavailableError);
    await expect(
      submitRun({ ...submission('travel_policies.list', {}), redis: `redis://user:hunter2@127.0.0.1:1/0` }),
    ).rejects.toThrow(/^Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1\/0 cannot be reached/);
    expect(await runRows(state.db)).toEqual([]);
  });
});
