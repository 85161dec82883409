import { streamKey } from '@plugboard/sdk/host';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresSink, postgresStores, runSourceIntoSink, SinkCheckpointMovedError } from '../src/index.js';
import { CONNECTION, type DescriptSource, READ, startDescriptSource } from './support/descript-source.js';
import { migratedDatabase } from './support/migrated.js';
import { startPageProxy } from './support/page-proxy.mjs';
import { lastCursor } from './support/cursor.js';
import { emptyWithSinks, sinkRows } from './support/sinks.js';

/** A source read into the sink through the executor, against the Descript simulator's drive. */

const db = migratedDatabase();
const SIZE = 95;
let source: DescriptSource;

/** Whether a transaction waits for a lock on the checkpoints table. */
async function waitsOnCheckpoints(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       WHERE c.relname = 'plugboard_checkpoints' AND NOT l.granted) AS waiting`,
  );
  return rows[0]!.waiting;
}

beforeAll(async () => {
  source = await startDescriptSource(SIZE);
});
afterAll(async () => {
  await source?.close();
});

const STREAM = streamKey({
  connector: 'descript',
  action: 'projects.list',
  connectionId: CONNECTION,
  environment: 'sandbox',
  input: READ.input,
});

async function expectEveryProjectOnce(table: string) {
  const landed = await sinkRows(db.pools[0], table);
  const projects = source.projects();
  expect(landed).toHaveLength(projects.size);
  for (const row of landed) {
    expect(row.writes).toBe(1);
    // The list's view of a project: its id and its last change as the provider keeps them.
    expect(row.record).toMatchObject({ id: row.key, updated_at: projects.get(row.key)?.updated_at });
  }
}

describe('runSourceIntoSink', () => {
  test('a full incremental read lands every record once, with the checkpoint at the last cursor', async () => {
    await emptyWithSinks(db);
    const sink = postgresSink(db.pools[0]);
    const outcome = await runSourceIntoSink(source.setup(db.pools[1]), sink, READ);
    expect(outcome).toMatchObject({ stream: STREAM, pages: 10, records: SIZE, table: sink.table(STREAM) });
    await expectEveryProjectOnce(outcome.table);
    const stored = await postgresStores(db.pools[1]).checkpoints.get(STREAM);
    expect(stored).toEqual(lastCursor(source.projects()));
    expect(outcome.checkpoint).toEqual(stored);
  });

  test('a run stopped after page 4 and run again resumes from its committed checkpoint: no record twice, none lost', async () => {
    await emptyWithSinks(db);
    const sink = postgresSink(db.pools[0]);
    const stop = new AbortController();
    const first = runSourceIntoSink(source.setup(db.pools[1]), sink, {
      ...READ,
      signal: stop.signal,
      onProgress: (event) => {
        if (event.type === 'page' && event.index === 3) stop.abort();
      },
    });
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    expect(await sinkRows(db.pools[0], sink.table(STREAM))).toHaveLength(40);
    source.sim.clearRequests();
    const second = await runSourceIntoSink(source.setup(db.pools[1]), sink, READ);
    // The second run asked the provider from the checkpoint on, not from the start.
    expect(source.sim.requests[0]?.query).toMatchObject({ updated_after: expect.any(String) });
    expect(second.records).toBe(SIZE - 40);
    await expectEveryProjectOnce(sink.table(STREAM));
  });

  test('a run whose stream another run moved on meanwhile stops typed at its next page, nothing of it written', async () => {
    await emptyWithSinks(db);
    const sink = postgresSink(db.pools[0]);
    const other = postgresSink(db.pools[1]);
    let pages = 0;
    // Another worker commits a later checkpoint of the stream just before this run's third page.
    const racing = {
      ...sink,
      async write(...args: Parameters<typeof sink.write>) {
        pages += 1;
        if (pages === 3) {
          const current = await other.checkpoint(STREAM);
          await other.write(
            STREAM,
            { records: [], checkpoint: { ...(current as object), seen_ids: ['other'] } },
            current,
          );
        }
        return sink.write(...args);
      },
    };
    const run = runSourceIntoSink(source.setup(db.pools[1]), racing, READ);
    const failure = await run.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SinkCheckpointMovedError);
    expect(failure).toMatchObject({ code: 'sink_checkpoint_moved', page: 2, retryable: true });
    expect(await sinkRows(db.pools[0], sink.table(STREAM))).toHaveLength(20);
    expect(await sink.checkpoint(STREAM)).toMatchObject({ seen_ids: ['other'] });
  });

  test('the reader asks for the next page while a page commits, and every page still lands once, in order', async () => {
    await emptyWithSinks(db);
    const sink = postgresSink(db.pools[0]);
    // Holds every write of a checkpoint (reads go on): page 1 cannot commit until this commits.
    const holder = await db.pools[1].connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE plugboard_checkpoints IN EXCLUSIVE MODE');
    let secondAsked = () => {};
    const asked = new Promise<void>((resolve) => {
      secondAsked = resolve;
    });
    const proxy = await startPageProxy(source.sim.url, (count, phase) => {
      if (count === 2 && phase === 'arrived') secondAsked();
    });
    try {
      const run = runSourceIntoSink(source.setup(db.pools[1], proxy.url), sink, READ);
      let ended = false;
      void run
        .finally(() => {
          ended = true;
        })
        .catch(() => {});
      // Page 1 has made its table and waits on the lock: what the server says, not a time.
      const pageWaits = async () => {
        while (!ended && !(await waitsOnCheckpoints(db.pools[0])))
          await new Promise((resolve) => setTimeout(resolve, 10));
      };
      // Settles only when the run failed: it cannot end while page 1 waits for the lock.
      await Promise.race([Promise.all([asked, pageWaits()]), run]);
      expect(await sinkRows(db.pools[0], sink.table(STREAM))).toHaveLength(0);
      await holder.query('COMMIT');
      expect(await run).toMatchObject({ pages: 10, records: SIZE });
      await expectEveryProjectOnce(sink.table(STREAM));
      expect(await sink.checkpoint(STREAM)).toEqual(lastCursor(source.projects()));
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
      await proxy.close();
    }
  }, 20_000);
});
