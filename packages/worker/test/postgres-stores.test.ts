import { InvalidInputError } from '@plugboard/sdk';
import { describe, expect, test } from 'vitest';
import { DatabaseUnavailableError, LIMITS, postgresStores, StoreValueTooLargeError } from '../src/index.js';
import { running } from './contract/records.js';
import { describeStoresContract } from './contract/stores.js';
import { migratedDatabase } from './support/migrated.js';

const db = migratedDatabase();

// Another view of the state is another pool on the same database: another machine.
describeStoresContract('postgresStores', async () => {
  await db.empty();
  return { stores: postgresStores(db.pools[0]), reopen: () => postgresStores(db.pools[1]) };
});

describe('postgresStores: two machines', () => {
  test('claims of many keys raced from two pools: each key has exactly one winner', async () => {
    await db.empty();
    const [a, b] = db.pools.map((pool) => postgresStores(pool));
    const keys = Array.from({ length: 10 }, (_, index) => `order-${index}`);
    const outcomes = await Promise.all(
      keys.flatMap((key) =>
        [a!, b!, a!, b!].map((stores, index) => stores.idempotency.claim(key, { ...running, digest: `${index}` })),
      ),
    );
    for (let index = 0; index < keys.length; index += 1) {
      const ofKey = outcomes.slice(index * 4, index * 4 + 4);
      expect(ofKey.filter((outcome) => outcome === undefined)).toHaveLength(1);
    }
    const { rows } = await db.pools[0].query('SELECT count(*)::int AS n FROM plugboard_idempotency_keys');
    expect(rows[0].n).toBe(10);
  });
});

describe('postgresStores: bounds', () => {
  test('a value over the limit is refused, typed and naming the field, before anything is written', async () => {
    await db.empty();
    const stores = postgresStores(db.pools[0]);
    const huge = { blob: 'x'.repeat(LIMITS.valueBytes) };
    const refused = await stores.checkpoints.commit('orders', huge).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreValueTooLargeError);
    expect(refused).toMatchObject({ code: 'store_value_too_large', field: 'checkpoint', limit: LIMITS.valueBytes });
    await expect(
      stores.idempotency.settle('k', { ...running, state: 'succeeded', result: huge, finishedAt: 'x' }),
    ).rejects.toMatchObject({ field: 'record' });
    await expect(stores.idempotency.claim('k'.repeat(LIMITS.keyBytes + 1), running)).rejects.toMatchObject({
      code: 'store_value_too_large',
      field: 'key',
    });
    expect(await stores.checkpoints.get('orders')).toBeUndefined();
  });

  test('a NUL character, which PostgreSQL cannot keep, is refused naming the field', async () => {
    const stores = postgresStores(db.pools[0]);
    await expect(stores.checkpoints.commit('orders', { text: 'a\u0000b' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(stores.checkpoints.commit('orders', { text: 'a\u0000b' })).rejects.toThrow(/checkpoint: holds a NUL/);
    await expect(stores.idempotency.get('a\u0000b')).rejects.toThrow(/key: holds a NUL/);
    // A backslash before u0000 is text, not a NUL.
    await stores.checkpoints.commit('orders', { text: '\\u0000' });
    expect(await stores.checkpoints.get('orders')).toEqual({ text: '\\u0000' });
  });

  test('a server that went away fails typed, naming the server, not with a raw socket error', async () => {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: await closedPort(),
      database: 'state',
      connectionTimeoutMillis: 5000,
    });
    try {
      const failure = await postgresStores(pool)
        .checkpoints.get('orders')
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect(failure).toMatchObject({ code: 'database_unavailable', retryable: true });
      expect((failure as Error).message).toMatch(
        /^PostgreSQL at 127\.0\.0\.1:\d+\/state cannot be reached: .*ECONNREFUSED/,
      );
    } finally {
      await pool.end();
    }
  });
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const { freePort } = await import('../../sdk/test/support/redis.js');
  return freePort();
}
