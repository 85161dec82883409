import { Queue } from 'bullmq';
import { addSchedule, listSchedules, type RunWorker, startWorker, WRITES_QUEUE } from '@plugboard/worker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver, listQueuedDeliveries, listQueuedPolls, type TriggerDelivery } from '../src/index.js';
import { postgresEventStore } from '../src/postgres-events.js';
import { startRedis } from '../../sdk/test/support/redis.js';
import { startFront } from './front.js';
import { fleetServers } from './queued-support.js';
import { ORDERS, RUN, shop, startProvider, TOKEN } from './shop.js';
import { deliver, ENV, startReceiver, testClock, trigger, useCleanup } from './support.js';

/**
 * Queued mode against the worker fleet's real servers: receipts and dedupe in PostgreSQL, an
 * accepted delivery's run queued on the run queue (under its execution id) and executed by a
 * real worker against a small provider, polls registered as the fleet's schedules.
 */

useCleanup();
const fleet = fleetServers();

let provider: Awaited<ReturnType<typeof startProvider>> | undefined;
let worker: RunWorker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await provider?.close();
  provider = undefined;
});

const queue = () => ({ redis: fleet.redis.url, postgres: fleet.url, connectors: [shop] });

async function deliveries(triggerId?: string): Promise<TriggerDelivery[]> {
  const found: TriggerDelivery[] = [];
  for await (const receipt of listQueuedDeliveries({ postgres: fleet.pool, ...(triggerId ? { triggerId } : {}) }))
    found.push(receipt);
  return found;
}

/** The writes queue's jobs, whatever their state, and the run rows. */
async function queued() {
  const writes = new Queue(WRITES_QUEUE, { connection: { url: fleet.redis.url, maxRetriesPerRequest: null } });
  try {
    const jobs = await writes.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
    const { rows } = await fleet.pool.query<{ id: string; status: string; idempotency_key: string }>(
      'SELECT id, status, idempotency_key FROM plugboard_runs ORDER BY id',
    );
    return { jobs: jobs.map((job) => job.id), rows };
  } finally {
    await writes.close();
  }
}

describe('a receiver in queued mode', () => {
  it("queues an accepted delivery's run under its execution id; a real worker runs it to succeeded", async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    const { urls, receiver, logs } = await startReceiver({ clock, config, queue: queue() });
    worker = await startWorker({
      redis: fleet.redis.url,
      postgres: fleet.url,
      connectors: [shop],
      concurrency: 1,
      resolveCredential: () => TOKEN,
    });
    const answer = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_paid_1');
    expect(answer.body).toMatchObject({
      accepted: true,
      duplicate: false,
      executionId: expect.stringMatching(/^exe_/),
    });
    const executionId = answer.body.executionId as string;
    await vi.waitFor(
      async () =>
        expect((await queued()).rows).toEqual([{ id: executionId, status: 'succeeded', idempotency_key: executionId }]),
      { timeout: 20_000, interval: 50 },
    );
    expect(provider.imports).toEqual([
      { authorization: `Bearer ${TOKEN}`, key: expect.stringMatching(/^pb_/), records: ORDERS.records },
    ]);
    await receiver.close();
    expect(logs.map((entry) => entry.message)).toContain(`run ${executionId} of trigger trg_orders queued: 2 records`);
    expect(await deliveries('trg_orders')).toEqual([
      expect.objectContaining({ status: 'accepted', recordCount: 2, executionId, eventType: 'orders.paid' }),
    ]);
  });

  it('two receivers on one PostgreSQL answer a repeated event alike: the second a duplicate with the first ids; one run queued', async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    const first = await startReceiver({ clock, config, queue: queue() });
    const second = await startReceiver({ clock, config, queue: queue() });
    const answers = [
      await deliver(first.urls.trg_orders!, clock, ORDERS, 'evt_twice'),
      await deliver(second.urls.trg_orders!, clock, ORDERS, 'evt_twice'),
    ];
    // Closing waits for the runs being queued.
    await Promise.all([first.receiver.close(), second.receiver.close()]);
    const [accepted, repeated] = answers.map((answer) => answer.body);
    expect(accepted).toMatchObject({ accepted: true, duplicate: false });
    expect(repeated).toMatchObject({
      accepted: true,
      duplicate: true,
      code: 'duplicate',
      deliveryId: accepted!.deliveryId,
      executionId: accepted!.executionId,
    });
    const { jobs, rows } = await queued();
    expect(jobs).toEqual([accepted!.executionId]);
    expect(rows.map((row) => row.id)).toEqual([accepted!.executionId]);
    expect((await deliveries()).map((receipt) => [receipt.status, receipt.executionId])).toEqual([
      ['accepted', accepted!.executionId],
      ['duplicate', accepted!.executionId],
    ]);
  });

  it('queues, once, the run of a delivery claimed but not queued before the receiver stopped', async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    // What a receiver that stopped between its claim and its queueing left: a pending claim.
    const delivery = {
      triggerId: 'trg_orders',
      eventId: 'evt_crash',
      deliveryId: 'dlv_crash',
      executionId: 'exe_crash',
      receivedAt: new Date(clock.now()).toISOString(),
      records: ORDERS.records,
    };
    expect(await postgresEventStore(fleet.pool).claim(delivery, 'evt_crash', true)).toEqual({ claimed: true });
    const restarted = await startReceiver({ clock, config, queue: queue() });
    await restarted.receiver.close();
    const again = await startReceiver({ clock, config, queue: queue() });
    await again.receiver.close();
    const said = (logs: typeof restarted.logs) => logs.filter((entry) => entry.message.startsWith('run exe_crash'));
    expect(said(restarted.logs).map((entry) => entry.message)).toEqual([
      'run exe_crash of trigger trg_orders queued: 2 records',
    ]);
    expect(said(again.logs)).toEqual([]);
    const { jobs, rows } = await queued();
    expect(jobs).toEqual(['exe_crash']);
    expect(rows).toEqual([{ id: 'exe_crash', status: 'queued', idempotency_key: 'exe_crash' }]);
    // The sender's retry of that event is its duplicate.
    const third = await startReceiver({ clock, config, queue: queue() });
    const retried = await deliver(third.urls.trg_orders!, clock, ORDERS, 'evt_crash');
    expect(retried.body).toMatchObject({ duplicate: true, executionId: 'exe_crash', deliveryId: 'dlv_crash' });
  });

  it('keeps pending a delivery whose run the queue could not take, and queues it when a receiver next listens', async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    // A Redis that is gone: nothing listens where it was.
    const gone = await startRedis();
    await gone.server!.stop();
    const away = await startReceiver({ clock, config, queue: { ...queue(), redis: gone.server!.url } });
    const answer = await deliver(away.urls.trg_orders!, clock, ORDERS, 'evt_later');
    expect(answer.body).toMatchObject({ accepted: true, duplicate: false });
    await away.receiver.close();
    expect(away.logs).toContainEqual(expect.objectContaining({ level: 'error', code: 'run_not_queued' }));
    expect((await queued()).jobs).toEqual([]);
    const back = await startReceiver({ clock, config, queue: queue() });
    await back.receiver.close();
    expect((await queued()).jobs).toEqual([answer.body.executionId]);
  });

  it('tries again every 30 seconds a run the queue could not take once Redis went away, and queues it once Redis is back', async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    const redisPort = Number(new URL(fleet.redis.url).port);
    const front = await startFront(redisPort);
    const redis = new URL(fleet.redis.url);
    redis.port = String(front.port);
    const { urls, receiver, logs } = await startReceiver({ clock, config, queue: { ...queue(), redis: redis.href } });
    const jobs = async () => (await queued()).jobs.sort();
    try {
      const first = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_before');
      await vi.waitFor(async () => expect(await jobs()).toEqual([first.body.executionId]), { interval: 20 });
      front.to(undefined);
      front.drop();
      const later = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_away');
      expect(later.body).toMatchObject({ accepted: true, duplicate: false });
      const refused = () => logs.filter((entry) => entry.code === 'run_not_queued');
      await vi.waitFor(() => expect(refused()).toHaveLength(1), { interval: 20 });
      // Still away when the time comes: refused again, and tried again later.
      await clock.advance(30_000);
      await vi.waitFor(() => expect(refused()).toHaveLength(2), { interval: 20 });
      front.to(redisPort);
      await clock.advance(30_000);
      await vi.waitFor(
        async () => expect(await jobs()).toEqual([first.body.executionId, later.body.executionId].sort()),
        {
          interval: 20,
        },
      );
      expect(logs.map((entry) => entry.message)).toContain(
        `run ${later.body.executionId} of trigger trg_orders queued: 2 records`,
      );
    } finally {
      await receiver.close();
      await front.close();
    }
    expect(await postgresEventStore(fleet.pool).pending()).toEqual([]);
  });

  it('answers 503 with Retry-After, accepting nothing and queueing no run, when PostgreSQL cannot be reached for the claim', async () => {
    provider = await startProvider();
    const clock = testClock();
    const config = { triggers: [trigger(RUN(provider.url))] };
    // The receiver reaches PostgreSQL through a front the test closes mid-run: connections refused.
    const front = await startFront(fleet.postgres.port);
    const postgres = new URL(fleet.url);
    postgres.port = String(front.port);
    const { urls, receiver, logs } = await startReceiver({
      clock,
      config,
      queue: { ...queue(), postgres: postgres.href },
    });
    await front.close();
    const answer = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_down');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(answer.body).toEqual({ accepted: false, code: 'unavailable' });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', code: 'database_unavailable' }));
    await receiver.close();
    const { rows } = await fleet.pool.query('SELECT event_id FROM plugboard_trigger_events');
    expect(rows).toEqual([]);
    expect(await queued()).toEqual({ jobs: [], rows: [] });
  });

  it('removes the receipts past receiptRetentionDays when a receiver listens, a batch at a time, whatever their ids', async () => {
    const insert = (count: number, receivedAt: string, prefix: string) =>
      fleet.pool.query(
        `INSERT INTO plugboard_trigger_deliveries (delivery_id, trigger_id, received_at, status, http_status)
         SELECT $3 || n, 'trg_orders', $2::timestamptz, 'accepted', 200 FROM generate_series(1, $1) AS n`,
        [count, receivedAt, prefix],
      );
    // Older than a day before the test's clock (2026-01-01), behind and among more than a batch of
    // rows from a receiver whose clock ran ahead (the oldest ids, not yet old by their time).
    await insert(1200, '2026-01-01T00:00:00Z', 'dlv_ahead_a');
    await insert(1500, '2025-12-01T00:00:00Z', 'dlv_old_a');
    await insert(1, '2026-01-01T00:00:00Z', 'dlv_ahead_b');
    await insert(1500, '2025-12-01T00:00:00Z', 'dlv_old_b');
    await insert(2, '2025-12-31T12:00:00Z', 'dlv_recent_');
    const { receiver } = await startReceiver({ clock: testClock(), queue: queue(), receiptRetentionDays: 1 });
    await receiver.close();
    const kept = (await deliveries()).map((receipt) => receipt.deliveryId);
    expect(kept).toHaveLength(1203);
    expect(kept.filter((id) => id.startsWith('dlv_old'))).toEqual([]);
    expect(kept.slice(-3)).toEqual(['dlv_ahead_b1', 'dlv_recent_1', 'dlv_recent_2']);
  });

  /** A receiver that reaches PostgreSQL through a front the test owns, and its probe's answer. */
  async function probedBehindFront() {
    const clock = testClock();
    const front = await startFront(fleet.postgres.port);
    const postgres = new URL(fleet.url);
    postgres.port = String(front.port);
    const { receiver } = await startReceiver({ clock, queue: { ...queue(), postgres: postgres.href } });
    const health = async () => {
      const answer = await fetch(`${receiver.url}/health`);
      return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.json() };
    };
    return { clock, front, receiver, health };
  }

  it('is healthy while PostgreSQL answers: each check answers the probes of the second that follows it', async () => {
    // The receiver reaches PostgreSQL through a front the test turns away from it and back.
    const { clock, front, receiver, health } = await probedBehindFront();
    expect(await health()).toEqual({ status: 200, retryAfter: null, body: { status: 'ok' } });
    front.to(undefined);
    front.drop();
    // Within the second, the last check answers: a flood of probes never reaches the database.
    expect((await Promise.all([health(), health(), health()])).map((answer) => answer.status)).toEqual([200, 200, 200]);
    await clock.advance(1_000);
    expect(await health()).toEqual({
      status: 503,
      retryAfter: '5',
      body: { status: 'unavailable', code: 'database_unavailable' },
    });
    front.to(fleet.postgres.port);
    await clock.advance(1_000);
    expect(await health()).toEqual({ status: 200, retryAfter: null, body: { status: 'ok' } });
    await receiver.close();
    await front.close();
  });

  it('answers a probe 503 timeout once its check has waited a second on a PostgreSQL that stopped answering', async () => {
    // The front holds the receiver's connections open and passes nothing more: a server that hangs.
    const { clock, front, receiver, health } = await probedBehindFront();
    expect((await health()).status).toBe(200);
    front.hold();
    await clock.advance(1_000);
    const timers = clock.pending;
    const from = clock.now();
    // Time moves once the check waits on its timer, and only as far as that timer.
    const probed = await clock.runUntil(health(), () => clock.pending > timers);
    const timedOut = { status: 503, retryAfter: '5', body: { status: 'unavailable', code: 'timeout' } };
    expect(probed).toEqual(timedOut);
    expect(clock.now() - from).toBe(1_000);
    // The check still waits, and no other starts (it would hold the next probe a second): answered at once.
    await clock.advance(5_000);
    expect(await health()).toEqual(timedOut);
    await front.close();
    await receiver.close();
  });

  it("registers each active poll as the fleet's schedule; its state is read from there", async () => {
    const clock = testClock();
    const poll = (pollTriggerId: string, status: string) => ({
      pollTriggerId,
      status,
      intervalMinutes: 15,
      environment: 'sandbox',
      run: {
        connector: 'shop',
        action: 'orders.list',
        connection: { id: 'shop-main', baseUrl: 'http://127.0.0.1:9' },
        input: {},
      },
    });
    const config = { triggers: [trigger()], polls: [poll('poll_orders', 'active'), poll('poll_off', 'paused')] };
    const { receiver } = await startReceiver({ clock, config, queue: queue() });
    const expected = {
      pollTriggerId: 'poll_orders',
      kind: 'poll',
      state: 'active',
      intervalMinutes: 15,
      connectionId: 'shop-main',
      operationKey: 'shop/orders.list',
      nextCheckAt: expect.any(String),
    };
    expect(receiver.polls()).toEqual([
      expect.objectContaining(expected),
      expect.objectContaining({ pollTriggerId: 'poll_off', state: 'paused', nextCheckAt: null }),
    ]);
    expect(await listQueuedPolls({ postgres: fleet.url })).toEqual([expect.objectContaining(expected)]);
    expect(await listSchedules({ postgres: fleet.pool })).toEqual([
      expect.objectContaining({
        name: 'poll_orders',
        connector: 'shop',
        operationKey: 'orders.list',
        intervalMinutes: 15,
      }),
    ]);
  });

  it("removes, when a receiver next starts, the schedule of a poll no longer in its configuration, and no other flow's", async () => {
    const clock = testClock();
    const connection = { id: 'shop-main', baseUrl: 'http://127.0.0.1:9' };
    const poll = (pollTriggerId: string, input: Record<string, unknown>) => ({
      pollTriggerId,
      status: 'active',
      intervalMinutes: 15,
      environment: 'sandbox',
      run: { connector: 'shop', action: 'orders.list', connection, input },
    });
    const kept = poll('poll_orders', {});
    const dropped = poll('poll_paid', { status: 'paid' });
    // A schedule of the fleet's own on another stream, not a receiver's.
    const target = { redis: fleet.redis.url, postgres: fleet.pool, connectors: [shop] };
    const input = { status: 'open' };
    await addSchedule({ ...target, connector: 'shop', source: 'orders.list', input, connection, intervalMinutes: 60 });
    const first = await startReceiver({
      clock,
      config: { triggers: [trigger()], polls: [kept, dropped] },
      queue: queue(),
    });
    await first.receiver.close();
    const names = async () => (await listSchedules({ postgres: fleet.pool })).map((schedule) => schedule.name).sort();
    expect(await names()).toEqual(['poll_orders', 'poll_paid', 'shop orders.list every 60m']);
    const second = await startReceiver({ clock, config: { triggers: [trigger()], polls: [kept] }, queue: queue() });
    await second.receiver.close();
    expect(await names()).toEqual(['poll_orders', 'shop orders.list every 60m']);
    expect((await listQueuedPolls({ postgres: fleet.pool })).map((state) => state.pollTriggerId)).toEqual([
      'poll_orders',
    ]);
  });

  it('refuses, naming the field and before reaching anything, a queue that cannot work', () => {
    const config = { triggers: [trigger()] };
    const attempt = (options: Record<string, unknown>) => () => createReceiver({ config, env: ENV, ...options });
    expect(attempt({ queue: { redis: 'http://127.0.0.1:1', postgres: 'postgres-ish' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        issues: [expect.objectContaining({ path: 'queue.redis' }), expect.objectContaining({ path: 'queue.postgres' })],
      }),
    );
    expect(attempt({ queue: queue(), startRun: async () => ({ records: 0 }) })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'startRun' })] }),
    );
    expect(attempt({})).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'stateDir' })] }));
  });
});
