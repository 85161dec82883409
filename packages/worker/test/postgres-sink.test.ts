import { InvalidInputError } from '@plugboard/sdk';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { postgresSink, postgresStores, SINK_LIMITS, StoreValueTooLargeError } from '../src/index.js';
import { migratedDatabase } from './support/migrated.js';
import { emptyWithSinks, sinkRows } from './support/sinks.js';

const db = migratedDatabase();
const STREAM = 'shop/orders.list/conn-1/sandbox/0123456789abcdef';

const rows = (table: string) => sinkRows(db.pools[0], table);

describe('postgresSink: a page and its checkpoint in one transaction', () => {
  test('the first page is written from no checkpoint, the next from the first: the checkpoint store sees each', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    const stores = postgresStores(db.pools[1]);
    const page1 = {
      records: [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
      checkpoint: { after: 2 },
    };
    expect(await sink.write(STREAM, page1, undefined)).toBe('written');
    expect(await stores.checkpoints.get(STREAM)).toEqual({ after: 2 });
    const page2 = { records: [{ id: 'c', n: 3 }], checkpoint: { after: 3 } };
    expect(await sink.write(STREAM, page2, { after: 2 })).toBe('written');
    expect(await stores.checkpoints.get(STREAM)).toEqual({ after: 3 });
    expect(await rows(sink.table(STREAM))).toEqual([
      { key: 'a', record: { id: 'a', n: 1 }, writes: 1 },
      { key: 'b', record: { id: 'b', n: 2 }, writes: 1 },
      { key: 'c', record: { id: 'c', n: 3 }, writes: 1 },
    ]);
  });

  test("counts a written page's records in the run's row in the page's transaction; a skipped page counts nothing", async () => {
    await emptyWithSinks(db, ['orders']);
    const pool = db.pools[0];
    await pool.query('DELETE FROM plugboard_runs');
    await pool.query(
      `INSERT INTO plugboard_runs (id, status, connector, action, connection_id, direction, correlation_id)
       VALUES ('run-1', 'running', 'shop', 'orders.list', 'conn-1', 'source', 'c-1')`,
    );
    const sink = postgresSink(pool);
    const page = { records: [{ id: 'a' }, { id: 'b' }], checkpoint: { after: 2 } };
    expect(await sink.write(STREAM, page, undefined, { countIn: 'run-1' })).toBe('written');
    expect(await sink.write(STREAM, page, undefined, { countIn: 'run-1' })).toBe('skipped');
    expect(await sink.write(STREAM, { records: [{ id: 'c' }] }, { after: 2 }, { countIn: 'run-1' })).toBe('written');
    const { rows: runs } = await pool.query('SELECT records_received, records_processed FROM plugboard_runs');
    expect(runs).toEqual([{ records_received: 3, records_processed: 3 }]);
  });

  test('a page redelivered after its commit is skipped, and nothing of it is written', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    const page = { records: [{ id: 'a', n: 1 }], checkpoint: { after: 1 } };
    expect(await sink.write(STREAM, page, undefined)).toBe('written');
    const again = { records: [{ id: 'a', n: 99 }], checkpoint: { after: 1 } };
    expect(await sink.write(STREAM, again, undefined)).toBe('skipped');
    const later = { records: [{ id: 'b', n: 2 }], checkpoint: { after: 2 } };
    expect(await sink.write(STREAM, later, { after: 1 })).toBe('written');
    expect(await sink.write(STREAM, later, { after: 1 })).toBe('skipped');
    expect(await rows(sink.table(STREAM))).toEqual([
      { key: 'a', record: { id: 'a', n: 1 }, writes: 1 },
      { key: 'b', record: { id: 'b', n: 2 }, writes: 1 },
    ]);
    expect(await sink.checkpoint(STREAM)).toEqual({ after: 2 });
  });

  test('one page written by two sinks at once, from two pools: exactly one writes it', async () => {
    await emptyWithSinks(db, ['orders']);
    const [a, b] = db.pools.map((pool) => postgresSink(pool));
    await a!.write(STREAM, { records: [], checkpoint: { after: 0 } }, undefined);
    const page = { records: [{ id: 'x' }], checkpoint: { after: 1 } };
    const outcomes = await Promise.all([a!, b!, a!, b!].map((sink) => sink.write(STREAM, page, { after: 0 })));
    expect(outcomes.filter((outcome) => outcome === 'written')).toHaveLength(1);
    expect(await rows(a!.table(STREAM))).toEqual([{ key: 'x', record: { id: 'x' }, writes: 1 }]);
  });

  test('the start is compared as JSON, whatever the order of its fields; a key repeated in a page keeps its last record', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    await sink.write(STREAM, { records: [], checkpoint: { at: 't1', seen: ['a'] } }, undefined);
    const page = {
      records: [
        { id: 7, v: 1 },
        { id: '7', v: 2 },
      ],
      checkpoint: { at: 't2', seen: [] },
    };
    expect(await sink.write(STREAM, page, { seen: ['a'], at: 't1' })).toBe('written');
    expect(await rows(sink.table(STREAM))).toEqual([{ key: '7', record: { id: '7', v: 2 }, writes: 1 }]);
  });

  test('a page without a checkpoint is written while the stream is where it started, and leaves it there', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    expect(await sink.write(STREAM, { records: [{ id: 'a' }] }, undefined)).toBe('written');
    expect(await sink.checkpoint(STREAM)).toBeUndefined();
    await sink.write(STREAM, { records: [], checkpoint: { after: 1 } }, undefined);
    expect(await sink.write(STREAM, { records: [{ id: 'b' }] }, { after: 1 })).toBe('written');
    expect(await sink.write(STREAM, { records: [{ id: 'c' }] }, undefined)).toBe('skipped');
    expect(await sink.checkpoint(STREAM)).toEqual({ after: 1 });
  });
});

describe('postgresSink: statements', () => {
  test('a page is a prepared statement the connection keeps: run again for the next pages, and after its table was made anew', async () => {
    await emptyWithSinks(db, ['orders']);
    // One connection: every page goes through the same one.
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const sink = postgresSink(pool, { table: () => 'orders' });
      for (let page = 1; page <= 3; page += 1) {
        const from = page === 1 ? undefined : page - 1;
        expect(await sink.write(STREAM, { records: [{ id: `r${page}` }], checkpoint: page }, from)).toBe('written');
      }
      const kept = () =>
        pool.query<{ runs: number }>(
          "SELECT (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE name LIKE 'plugboard\\_sink\\_%' ORDER BY runs",
        );
      // The first page's (no checkpoint yet) once, the compare-and-set's twice: each parsed once.
      expect((await kept()).rows).toEqual([{ runs: 1 }, { runs: 2 }]);
      await pool.query('DROP TABLE orders');
      const again = postgresSink(pool, { table: () => 'orders' });
      expect(await again.write(STREAM, { records: [{ id: 'r4' }], checkpoint: 4 }, 3)).toBe('written');
      expect((await kept()).rows).toEqual([{ runs: 1 }, { runs: 3 }]);
      expect(await rows('orders')).toEqual([{ key: 'r4', record: { id: 'r4' }, writes: 1 }]);
    } finally {
      await pool.end();
    }
  });
});

describe('postgresSink: tables', () => {
  test('a table per stream, named from the stream and quoted; a hostile stream name stays a name', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    expect(sink.table(STREAM)).toMatch(/^plugboard_sink_shop_orders_list_conn_1_sandbox_[0-9a-f]+_[0-9a-f]{8}$/);
    const hostile = 'x"; DROP TABLE plugboard_checkpoints; --';
    expect(await sink.write(hostile, { records: [{ id: 'a' }], checkpoint: 1 }, undefined)).toBe('written');
    expect(sink.table(hostile)).toMatch(/^plugboard_sink_x_drop_table_plugboard_checkpoints_[0-9a-f]{8}$/);
    expect(sink.table('A/B')).not.toBe(sink.table('a/b'));
    expect(sink.table('x'.repeat(500))).toHaveLength(63);
    expect(await postgresStores(db.pools[0]).checkpoints.get(hostile)).toBe(1);
  });

  test("a host's table naming is used, and a name that is no plain identifier is refused naming the field", async () => {
    await emptyWithSinks(db, ['orders']);
    const named = postgresSink(db.pools[0], { table: () => 'orders' });
    await named.write(STREAM, { records: [{ id: 'a' }], checkpoint: 1 }, undefined);
    expect(await rows('orders')).toHaveLength(1);
    const bad = postgresSink(db.pools[0], { table: () => 'Orders"; --' });
    const refused = await bad.write(STREAM, { records: [{ id: 'a' }], checkpoint: 2 }, 1).catch((error) => error);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect(refused.message).toMatch(/table: must be 1 to 63 lower-case letters/);
    expect(await named.checkpoint(STREAM)).toBe(1);
  });
});

describe('postgresSink: hostile records', () => {
  test('records are refused before any statement, typed and naming the field', async () => {
    await emptyWithSinks(db, ['orders']);
    const sink = postgresSink(db.pools[0]);
    const write = (records: unknown) =>
      sink.write(STREAM, { records: records as unknown[], checkpoint: 1 }, undefined).catch((error) => error);
    expect((await write([{ id: 'a' }, { name: 'no id' }])).message).toMatch(
      /records\[1\]\.id: must be a non-empty string/,
    );
    expect((await write([{ id: 'a' }, [1, 2]])).message).toMatch(/records\[1\]: must be a JSON object/);
    expect((await write([{ id: 'a\u0000' }])).message).toMatch(/records\[0\]\.id: holds a NUL/);
    expect((await write([{ id: 'a', text: 'b\u0000' }])).message).toMatch(/records\[0\]: holds a NUL/);
    expect((await write([{ id: 'k'.repeat(SINK_LIMITS.keyBytes + 1) }])).field).toBe('records[0].id');
    const cyclic: Record<string, unknown> = { id: 'a' };
    cyclic.self = cyclic;
    expect((await write([cyclic])).message).toMatch(/records\[0\]: is not JSON/);
    const huge = await write([{ id: 'a', blob: 'x'.repeat(SINK_LIMITS.recordBytes) }]);
    expect(huge).toBeInstanceOf(StoreValueTooLargeError);
    expect(huge).toMatchObject({ code: 'store_value_too_large', field: 'records[0]' });
    const many = Array.from({ length: SINK_LIMITS.pageRecords + 1 }, (_, index) => ({ id: index }));
    expect((await write(many)).message).toMatch(/records: holds 10001 records/);
    expect(await sink.checkpoint(STREAM)).toBeUndefined();
  });
});
