import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fileLease } from '../src/auth/file-lease.js';
import {
  LEASE_FALLBACK_POLL_MS,
  type LeaseAttempt,
  type LeaseWait,
  type RefreshLease,
  waitForLease,
} from '../src/auth/lease.js';
import { redisLease } from '../src/auth/redis-lease.js';
import { type ManualClock, manualClock } from '../src/clock.js';
import { RedisConnection } from '../src/redis/connection.js';
import { type RedisServer, startRedis } from './support/redis.js';

/**
 * The leases that let one process at a time refresh a connection's tokens: only the holder
 * frees one, a waiter goes once it is free (told by the holder's release, with no time passing),
 * and a holder that died is outlived after the lease's time (on the clock the test moves).
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
 * answer) come in before each step, so that every look it makes in that time runs; stops early
 * once `waiting` settled (a waiter that took the lease sets no further timer). Gives how many
 * timers ran: each a waiter's look.
 */
async function pollFor(ms: number, waiting: Promise<unknown>): Promise<number> {
  let done = false;
  void waiting.then(
    () => (done = true),
    () => (done = true),
  );
  const until = clock.now() + ms;
  let timers = 0;
  while (clock.now() < until && !done) {
    while (clock.pending === 0 && !done) await new Promise((resolve) => setImmediate(resolve));
    if (!done && (await clock.next())) timers += 1;
  }
  return timers;
}

/**
 * While another holds `lease` for two seconds, a waiter looks at it only at the fallback pace
 * (20 looks; waiters polling made 380) and reads the store not once; the release wakes it with
 * no time passing on the clock, and it has read the store at most once.
 */
async function wakesAtRelease(lease: RefreshLease): Promise<void> {
  const release = (await lease.take('rigged:conn-1'))!;
  let reads = 0;
  let written = false;
  const waiting = lease.take('rigged:conn-1', async () => {
    reads += 1;
    return written;
  });
  expect(await pollFor(2_000, waiting)).toBeLessThanOrEqual(2_000 / 100);
  expect(reads).toBe(0);
  written = true;
  await release();
  const released = clock.now();
  // Nothing moves the clock: only the release's notice can wake the waiter.
  const taken = await waiting;
  expect(clock.now()).toBe(released);
  // Either it took the freed lease (the lifecycle then reads the store once) or it read it here.
  await taken?.();
  expect(reads).toBeLessThanOrEqual(1);
}

describe('the waiting', () => {
  let looks: number;
  let free: boolean;
  /** Runs in a look after it read the lease. */
  let duringLook: (() => void) | undefined;
  let notify: () => void;
  let listens: number;
  let stops: number;
  let wait: LeaseWait;
  beforeEach(() => {
    looks = 0;
    free = false;
    duringLook = undefined;
    listens = 0;
    stops = 0;
    const attempt = async (): Promise<LeaseAttempt> => {
      looks += 1;
      const tried: LeaseAttempt = free ? { taken: true } : { taken: false, holder: 'another' };
      duringLook?.();
      return tried;
    };
    wait = {
      clock,
      leaseMs: 5_000,
      attempt,
      settled: undefined,
      unavailable: () => new Error('held too long'),
      listen: async (given) => {
        listens += 1;
        notify = given;
        return () => void (stops += 1);
      },
    };
  });

  it('takes a free lease at the first look, without listening', async () => {
    free = true;
    expect(await waitForLease(wait)).toBe(true);
    expect({ looks, listens }).toEqual({ looks: 1, listens: 0 });
  });

  it('while the lease is held, looks again only when told or at the fallback pace, and goes at once when told of the release', async () => {
    const waiting = waitForLease(wait);
    const timers = await pollFor(1_000, waiting);
    // The first look, one more once listening (a release in between), then one a fallback poll.
    expect(timers).toBe(1_000 / LEASE_FALLBACK_POLL_MS);
    expect(looks).toBe(2 + 1_000 / LEASE_FALLBACK_POLL_MS);
    expect(listens).toBe(1);
    const told = clock.now();
    free = true;
    notify();
    expect(await waiting).toBe(true);
    expect(clock.now()).toBe(told);
    expect(looks).toBe(3 + 1_000 / LEASE_FALLBACK_POLL_MS);
    expect(stops).toBe(1);
  });

  it('a notice that comes while it looks is kept: it looks again at once', async () => {
    const waiting = waitForLease(wait);
    await pollFor(LEASE_FALLBACK_POLL_MS, waiting);
    const told = clock.now();
    // The holder lets go just after a look read the lease as held.
    duringLook = () => {
      duringLook = undefined;
      free = true;
      notify();
    };
    await clock.next();
    expect(await waiting).toBe(true);
    expect(clock.now()).toBe(told + LEASE_FALLBACK_POLL_MS);
  });

  it('gives up on a holder that never lets go after twice the lease time, and stops listening', async () => {
    const waiting = waitForLease({ ...wait, leaseMs: 500 });
    await expect(clock.runUntil(waiting)).rejects.toThrow('held too long');
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBe(1_000);
    expect(stops).toBe(1);
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

  it('a waiter looks at the fallback pace and does not read the store while the holder holds; the removed lock wakes it', async () => {
    const lease = fileLease(dir, clock, 5_000);
    await wakesAtRelease(lease);
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
  let connection: RedisConnection | undefined;
  beforeAll(async () => {
    const result = await startRedis();
    if (result.server) redis = result.server;
    else skipReason = result.reason;
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    await connection?.close();
  });

  it('one holder at a time; released, the next goes', async (context) => {
    if (!redis) return context.skip(skipReason);
    connection = new RedisConnection(redis.url, { clock });
    const lease = redisLease(connection, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    const waiting = lease.take('rigged:conn-1');
    await clock.advance(100);
    expect(await settled(waiting)).toBe(false);
    await release();
    await (await clock.runUntil(waiting))!();
    expect(await (await connection.client()).exists('plugboard:oauth:{rigged:conn-1}:lease')).toBe(0);
  });

  it('a waiter looks at the fallback pace and does not read the store while the holder holds; the published release wakes it', async (context) => {
    if (!redis) return context.skip(skipReason);
    connection = new RedisConnection({ url: redis.url, prefix: 'settled:' }, { clock });
    const lease = redisLease(connection, clock, 5_000);
    await wakesAtRelease(lease);
  });

  it('a holder that died without releasing: once its lease ran out in Redis, a waiter takes it at its next look', async (context) => {
    if (!redis) return context.skip(skipReason);
    connection = new RedisConnection({ url: redis.url, prefix: 'died:' }, { clock });
    const lease = redisLease(connection, clock, 5_000);
    await lease.take('rigged:conn-1');
    const waiting = lease.take('rigged:conn-1');
    expect(await pollFor(1_000, waiting)).toBeLessThanOrEqual(1_000 / 100);
    // Its time runs out in Redis (sooner than the lease's 5 s of the server's time): no release, no message.
    const client = await connection.client();
    await client.pexpire('died:oauth:{rigged:conn-1}:lease', 1);
    while (await client.exists('died:oauth:{rigged:conn-1}:lease'))
      await new Promise((resolve) => setImmediate(resolve));
    const expired = clock.now();
    expect(await settled(waiting)).toBe(false);
    await (await clock.runUntil(waiting))!();
    expect(clock.now() - expired).toBeLessThanOrEqual(LEASE_FALLBACK_POLL_MS);
  });

  it('waiters of a process share one subscriber, made when the first waits and closed with the connection', async (context) => {
    if (!redis) return context.skip(skipReason);
    connection = new RedisConnection({ url: redis.url, prefix: 'subscriber:' }, { clock });
    const lease = redisLease(connection, clock, 5_000);
    const onlooker = new RedisConnection(redis.url, { clock });
    try {
      const client = await onlooker.client();
      const clients = async () => Number(/connected_clients:(\d+)/.exec(await client.info('clients'))![1]);
      const releases = [(await lease.take('rigged:conn-1'))!, (await lease.take('rigged:conn-2'))!];
      // The onlooker and the connection; a free lease is taken without a subscriber.
      expect(await clients()).toBe(2);
      const [one, two, three] = [lease.take('rigged:conn-1'), lease.take('rigged:conn-2'), lease.take('rigged:conn-2')];
      // Each waiter waits once it listens: for a notice or its fallback look.
      while (clock.pending < 3) await new Promise((resolve) => setImmediate(resolve));
      expect(await clients()).toBe(3);
      expect(await client.pubsub('NUMSUB', 'subscriber:oauth:{rigged:conn-2}:lease:released')).toEqual([
        'subscriber:oauth:{rigged:conn-2}:lease:released',
        1,
      ]);
      for (const release of releases) await release();
      await (await one)!();
      // The two waiters of conn-2 go one after the other, the second woken by the first's release.
      const first = await Promise.race([
        two.then((release) => ({ release, other: three })),
        three.then((release) => ({ release, other: two })),
      ]);
      await first.release!();
      await (await first.other)!();
      expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
      await connection.close();
      expect(await clients()).toBe(1);
    } finally {
      await onlooker.close();
    }
  });

  it("a holder that outlived its lease does not free the next holder's", async (context) => {
    if (!redis) return context.skip(skipReason);
    connection = new RedisConnection({ url: redis.url, prefix: 'outlived:' }, { clock });
    const lease = redisLease(connection, clock, 5_000);
    const release = (await lease.take('rigged:conn-1'))!;
    // As when its time ran out in Redis: the lease is gone and another process takes it.
    await (await connection.client()).del('outlived:oauth:{rigged:conn-1}:lease');
    const taken = (await lease.take('rigged:conn-1'))!;
    await release();
    const client = await connection.client();
    expect(await client.exists('outlived:oauth:{rigged:conn-1}:lease')).toBe(1);
    await taken();
    expect(await client.exists('outlived:oauth:{rigged:conn-1}:lease')).toBe(0);
  });
});
