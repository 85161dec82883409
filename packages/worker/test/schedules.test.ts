import { InvalidInputError } from '@plugboard/sdk';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addSchedule,
  listSchedules,
  reconcileSchedules,
  removeSchedule,
  SCHEDULES_QUEUE,
  startWorker,
  submitRun,
} from '../src/index.js';
import { fleet, insurance, runRows, simulatorConnection } from './support/fleet.js';
import { held } from './support/upstream.js';

const state = fleet();
let ticks: Queue;
beforeAll(() => {
  ticks = new Queue(SCHEDULES_QUEUE, { connection: { url: state.redis.url, maxRetriesPerRequest: null } });
});
afterAll(async () => {
  await ticks?.close();
});
beforeEach(async () => {
  await state.db.pools[0].query('TRUNCATE plugboard_schedules');
});

const target = () => ({ redis: state.redis.url, postgres: state.db.url });

function schedule(extra: Record<string, unknown> = {}) {
  return {
    ...target(),
    connectors: [insurance],
    connector: 'insurance',
    source: 'travel_policies.list',
    connection: simulatorConnection(state.simulator),
    intervalMinutes: 5,
    ...extra,
  };
}

const schedulerIds = async () => (await ticks.getJobSchedulers(0, -1)).map((scheduler) => scheduler.key).sort();

describe('schedules', () => {
  it('add, list and remove: a PollTrigger row and one BullMQ job scheduler, both gone on removal', async () => {
    const added = await addSchedule(schedule({ input: { page_size: 2 } }));
    expect(added).toMatchObject({
      kind: 'poll',
      status: 'active',
      state: 'waiting',
      stateMessage: null,
      connector: 'insurance',
      operationKey: 'travel_policies.list',
      connectionId: 'conn-1',
      environment: 'sandbox',
      intervalMinutes: 5,
      flowId: 'insurance',
      name: 'insurance travel_policies.list every 5m',
      lastCheckedAt: null,
      lastRunId: null,
    });
    expect(added.pollTriggerId).toMatch(/^poll-[0-9a-f]{40}$/);
    expect(added.nextCheckAt).not.toBeNull();
    expect(await listSchedules(target())).toEqual([added]);
    expect(await schedulerIds()).toEqual([added.pollTriggerId]);
    expect((await ticks.getJobScheduler(added.pollTriggerId))?.every).toBe(5 * 60_000);

    expect(await removeSchedule(target(), added.pollTriggerId)).toBe(true);
    expect(await listSchedules(target())).toEqual([]);
    expect(await schedulerIds()).toEqual([]);
    expect(await removeSchedule(target(), added.pollTriggerId)).toBe(false);
  });

  it.each([
    ['an unknown source', { source: 'travel_policies.nope' }, 'unknown_action', 'travel_policies.nope'],
    ['an input the source refuses', { input: { page_size: 'many' } }, 'invalid_input', 'page_size'],
    [
      'a secret in the connection settings',
      { connection: { id: 'conn-1', baseUrl: 'http://127.0.0.1:1', settings: { api_token: 'k' } } },
      'invalid_connection',
      'settings.api_token',
    ],
  ])('%s is refused as submitRun refuses the run, before anything is kept', async (_, change, code, field) => {
    const failure = await addSchedule(schedule(change)).catch((error: unknown) => error);
    const { source, intervalMinutes: _interval, ...run } = schedule(change);
    const submitted = await submitRun({ ...run, action: source }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code, name: (submitted as Error).name, message: (submitted as Error).message });
    expect((failure as Error).message).toContain(field);
    expect(await listSchedules(target())).toEqual([]);
    expect(await schedulerIds()).toEqual([]);
    expect(await runRows(state.db)).toEqual([]);
  });

  it.each([
    ['a destination', { source: 'travel_policies.create', input: { traveller: 'a' } }, 'source'],
    ['an interval of 0', { intervalMinutes: 0 }, 'intervalMinutes'],
    ['an interval of 1.5', { intervalMinutes: 1.5 }, 'intervalMinutes'],
    ['a Redis URL that is not redis://', { redis: 'http://127.0.0.1:1' }, 'redis'],
  ])('%s is refused with an InvalidInputError naming the field, nothing kept', async (_, change, field) => {
    const failure = await addSchedule(schedule(change)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidInputError);
    expect((failure as InvalidInputError).message).toContain(`${field}:`);
    expect(await listSchedules(target())).toEqual([]);
    expect(await schedulerIds()).toEqual([]);
  });

  it('two reconcilers at once put each scheduler in once', async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async (size) => (await addSchedule(schedule({ input: { page_size: size } }))).pollTriggerId),
    );
    await ticks.obliterate({ force: true });
    expect(await schedulerIds()).toEqual([]);
    // Both start while the lock is held elsewhere, as the server counts: neither may go ahead of the other.
    const holder = await state.db.pools[1].connect();
    let both: Array<{ added: string[]; removed: string[] }>;
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('plugboard_schedules'))");
      const reconciling = Promise.all([reconcileSchedules(target()), reconcileSchedules(target())]);
      await expect
        .poll(async () => {
          const { rows } = await state.db.pools[0].query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          return rows[0].n;
        })
        .toBe(2);
      await holder.query('COMMIT');
      both = await reconciling;
    } finally {
      holder.release();
    }
    expect(both.flatMap((done) => done.added).sort()).toEqual([...ids].sort());
    expect(both.flatMap((done) => done.removed)).toEqual([]);
    expect(await schedulerIds()).toEqual([...ids].sort());
  });

  it('reconcile puts back a scheduler removed from Redis and takes out one PostgreSQL lacks', async () => {
    const kept = await addSchedule(schedule({ input: { page_size: 1 } }));
    const dropped = await addSchedule(schedule({ input: { page_size: 2 } }));
    await ticks.removeJobScheduler(kept.pollTriggerId);
    await state.db.pools[0].query('DELETE FROM plugboard_schedules WHERE poll_trigger_id = $1', [
      dropped.pollTriggerId,
    ]);
    expect(await reconcileSchedules(target())).toEqual({
      added: [kept.pollTriggerId],
      removed: [dropped.pollTriggerId],
    });
    expect(await schedulerIds()).toEqual([kept.pollTriggerId]);
    expect(await reconcileSchedules(target())).toEqual({ added: [], removed: [] });
  });

  it('a tick whose run the worker refuses is failed, with the error in stateMessage, and queues nothing', async () => {
    // This worker has no insurance connector: the tick's run fails the checks submitRun makes.
    const running = await startWorker({
      ...target(),
      connectors: [],
      concurrency: 1,
      resolveCredential: () => undefined,
    });
    try {
      await addSchedule(schedule());
      await expect.poll(async () => (await listSchedules(target()))[0]?.state, { timeout: 20_000 }).toBe('failed');
      const [failed] = await listSchedules(target());
      expect(failed?.stateMessage).toMatch(/^unknown_connector: /);
      expect(failed?.lastRunId).toBeNull();
      expect(await runRows(state.db)).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('a tick while the previous run is still running is skipped, said so in stateMessage, never stacked', async () => {
    const provider = await held(state.simulator.url);
    const running = await startWorker({
      ...target(),
      connectors: [insurance],
      concurrency: 2,
      resolveCredential: () => state.simulator.apiKey,
    });
    try {
      // Adding ticks at once (BullMQ's `every`): its run reaches the held provider.
      const added = await addSchedule(schedule({ connection: { id: 'conn-1', baseUrl: provider.url } }));
      await provider.receivedAtLeast(1);
      const [first] = await listSchedules(target());
      expect(first).toMatchObject({ state: 'submitted', stateMessage: null });
      const firstRun = first!.lastRunId!;
      // The next tick is a delayed job: promote it instead of waiting five minutes.
      const [next] = await ticks.getDelayed();
      expect(next?.repeatJobKey).toBe(added.pollTriggerId);
      await next!.promote();
      await expect.poll(async () => (await listSchedules(target()))[0]?.state, { timeout: 20_000 }).toBe('skipped');
      const [skipped] = await listSchedules(target());
      expect(skipped).toMatchObject({
        lastRunId: firstRun,
        stateMessage: `tick skipped: run ${firstRun} is still running`,
      });
      expect(Date.parse(skipped!.nextCheckAt!) - Date.parse(skipped!.lastCheckedAt!)).toBe(5 * 60_000);
      expect((await runRows(state.db)).map((row) => row.id)).toEqual([firstRun]);
      expect(provider.received).toBe(1);
      provider.release();
      await expect.poll(async () => (await runRows(state.db))[0]?.status, { timeout: 20_000 }).toBe('succeeded');
    } finally {
      await running.close();
      await provider.close();
    }
  });
});
