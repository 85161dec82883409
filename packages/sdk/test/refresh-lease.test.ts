import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fileLease } from '../src/auth/file-lease.js';
import {
  LEASE_FAST_POLLING_MS,
  LEASE_POLL_MS,
  LEASE_SLOW_POLL_MS,
  type LeaseAttempt,
  type RefreshLease,
  waitForLease,
} from '../src/auth/lease.js';
import { redisLease } from '../src/auth/redis-lease.js';
import { type ManualClock, manualClock } from '../src/clock.js';
import { RedisBudgets } from '../src/http/redis-budget-state.js';
import { type RedisServer, startRedis } from './support/redis.js';

/**
 * The leases that let one process at a time refresh a connection's tokens: only the holder
 * frees one, a waiter goes once it is free, and a holder that died is outlived after the
 * lease's time (on the clock the test moves).
 */

let clock: ManualClock;
beforeEach(() => {
  clock = manualClock();
});

/** Whether `promise` has settled after the pending turns ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/**
 * Moves the clock on by `ms` one timer at a time, letting a waiter's I/O (a file read, a Redis
 * answer) come in before each step, so that every poll it makes in that time runs; stops early
 * once `waiting` settled (a waiter that took the lease sets no further timer).
 */
async function pollFor(ms: number, waiting: Promise<unknown>): Promise<void> {
  let done = false;
  void waiting.then(
    () => (done = true),
    () => (done = true),
  );
  const until = clock.now() + ms;
  while (clock.now() < until && !done) {
    while (clock.pending === 0 && !done) await new Promise((resolve) => setImmediate(resolve));
    if (!done) await clock.next();
  }
}

/**
 * While another holds `lease`, a waiter reads the store (its `settled`) not once; after the
 * release it goes within one poll, having read it at most once.
 */
async function waitsWithoutReading(lease: RefreshLease): Promise<void> {
  const release = (await lease.take('rigged:conn-1'))!;
  let reads = 0;
  let written = false;
  const waiting = lease.take('rigged:conn-1', async () => {
    reads += 1;
    return written;
  });
  await pollFor(100, waiting);
  expect(reads).toBe(0);
  written = true;
  await release();
  const released = clock.now();
  const taken = await clock.runUntil(waiting);
  expect(clock.now() - released).toBeLessThanOrEqual(LEASE_POLL_MS);
  // Either it took the freed lease (the lifecycle then reads the store once) or it read it here.
  await taken?.();
  expect(reads).toBeLessThanOrEqual(1);
}

describe('the waiting', () => {
  it('looks every millisecond while the refresh it waits for is young, then every 10 ms, and goes at the next look after the release', async () => {
    let looks = 0;
    let free = false;
    const attempt = async (): Promise<LeaseAttempt> => {
      looks += 1;
      return free ? { taken: true } : { taken: false, holder: 'another' };
    };
    const waiting = waitForLease(clock, 5_000, attempt, undefined, () => new Error('held too long'));
    await pollFor(LEASE_FAST_POLLING_MS, waiting);
    // The first look, then one a millisecond.
    expect(looks).toBe(LEASE_FAST_POLLING_MS / LEASE_POLL_MS + 1);
    await pollFor(1_000, waiting);
    expect(looks).toBe(LEASE_FAST_POLLING_MS / LEASE_POLL_MS + 1 + 1_000 / LEASE_SLOW_POLL_MS);
    free = true;
    const freed = clock.now();
    expect(await clock.runUntil(waiting)).toBe(true);
    expect(clock.now() - freed).toBeLessThanOrEqual(LEASE_SLOW_POLL_MS);
  });
});

describe('lock file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugboard-lease-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('one holder at a time; released, the next goes; nothing is left', async () => {
    const lease = fileLease(dir, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    const waiting = lease.take('rigged:conn-1');
    await clock.advance(100);
    expect(await settled(waiting)).toBe(false);
    await release();
    const next = (await clock.runUntil(waiting))!;
    await next();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a waiter does not read the store while the holder holds, and goes within a poll of its release', async () => {
    const lease = fileLease(dir, clock, 5_000);
    await waitsWithoutReading(lease);
  });

  it('a lock its holder left (a process that died) is taken over after the lease time', async () => {
    const lease = fileLease(dir, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    const [file] = await readdir(dir);
    const waiting = lease.take('rigged:conn-1');
    await clock.advance(4_000);
    expect(await settled(waiting)).toBe(false);
    await clock.advance(1_100);
    const taken = (await clock.runUntil(waiting))!;
    // The first holder's late release leaves the new holder's lock alone.
    await release();
    expect(await readdir(dir)).toEqual([file]);
    await taken();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a lock file cut short is taken over only once it stays unreadable for the lease time', async () => {
    const lease = fileLease(dir, clock, 500);
    const release = (await lease.take('rigged:conn-1'))!;
    const [file] = await readdir(dir);
    await release();
    await writeFile(join(dir, file!), '{"tok');
    const waiting = lease.take('rigged:conn-1');
    await clock.advance(400);
    expect(await settled(waiting)).toBe(false);
    await clock.advance(110);
    await (await clock.runUntil(waiting))!();
  });
});

describe('Redis', () => {
  let redis: RedisServer | undefined;
  let skipReason = '';
  let budgets: RedisBudgets | undefined;
  beforeAll(async () => {
    const result = await startRedis();
    if (result.server) redis = result.server;
    else skipReason = result.reason;
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    await budgets?.close();
  });

  it('one holder at a time; released, the next goes', async (context) => {
    if (!redis) return context.skip(skipReason);
    budgets = new RedisBudgets(redis.url, { clock });
    const lease = redisLease(budgets, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    const waiting = lease.take('rigged:conn-1');
    await clock.advance(100);
    expect(await settled(waiting)).toBe(false);
    await release();
    await (await clock.runUntil(waiting))!();
    expect(await (await budgets.client()).exists('plugboard:oauth:{rigged:conn-1}:lease')).toBe(0);
  });

  it('a waiter does not read the store while the holder holds, and goes within a poll of its release', async (context) => {
    if (!redis) return context.skip(skipReason);
    budgets = new RedisBudgets({ url: redis.url, prefix: 'settled:' }, { clock });
    const lease = redisLease(budgets, clock, 5_000);
    await waitsWithoutReading(lease);
  });

  it("a holder that outlived its lease does not free the next holder's", async (context) => {
    if (!redis) return context.skip(skipReason);
    budgets = new RedisBudgets({ url: redis.url, prefix: 'outlived:' }, { clock });
    const lease = redisLease(budgets, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    // As when its time ran out in Redis: the lease is gone and another process takes it.
    await (await budgets.client()).del('outlived:oauth:{rigged:conn-1}:lease');
    const taken = (await lease.take('rigged:conn-1'))!;
    await release();
    const client = await budgets.client();
    expect(await client.exists('outlived:oauth:{rigged:conn-1}:lease')).toBe(1);
    await taken();
    expect(await client.exists('outlived:oauth:{rigged:conn-1}:lease')).toBe(0);
  });
});
