import type { IncomingMessage } from 'node:http';
import { descript } from '@plugboard/connector-descript';
import { streamKey } from '@plugboard/sdk/host';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { postgresSink, postgresStores, startWorker, submitRun } from '../src/index.js';
import { type DescriptSource, READ, startDescriptSource } from './support/descript-source.js';
import { fleet, runRows } from './support/fleet.js';
import { lastCursor } from './support/cursor.js';
import { startGateProxy } from './support/gate-proxy.js';
import { emptyWithSinks, sinkRows } from './support/sinks.js';

const SIZE = 45;
const state = fleet();
let source: DescriptSource;
beforeAll(async () => {
  source = await startDescriptSource(SIZE);
});
afterAll(async () => {
  await source?.close();
});
beforeEach(async () => {
  await emptyWithSinks(state.db);
});

function worker() {
  return startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [descript],
    concurrency: 1,
    resolveCredential: () => source.sim.token,
    sink: 'postgres',
  });
}

function read(baseUrl: string) {
  return {
    redis: state.redis.url,
    postgres: state.db.pools[0],
    connectors: [descript],
    connector: 'descript',
    action: READ.action,
    input: READ.input,
    connection: { id: READ.connectionId, baseUrl },
  };
}

const STREAM = streamKey({ ...READ, connector: 'descript', environment: 'sandbox' });

describe("startWorker({ sink: 'postgres' })", () => {
  it('writes a read taken from the queue into the sink: every record once, the checkpoint at the last cursor', async () => {
    const running = await worker();
    try {
      const pages: unknown[][] = [];
      const { run } = await submitRun({
        ...read(source.sim.url),
        follow: { onPage: (page) => pages.push(page.records) },
      });
      expect(run).toMatchObject({ status: 'succeeded', recordsProcessed: SIZE, error: null });
      const landed = await sinkRows(state.db.pools[0], postgresSink(state.db.pools[0]).table(STREAM));
      expect(landed.map((row) => row.key)).toEqual([...source.projects().keys()].sort());
      expect(landed.filter((row) => row.writes !== 1)).toEqual([]);
      expect(await postgresStores(state.db.pools[1]).checkpoints.get(STREAM)).toEqual(lastCursor(source.projects()));
      expect(pages.flat()).toHaveLength(SIZE);
    } finally {
      await running.close();
    }
  });

  it('a read nobody follows sends no page through Redis, and counts every record in its row', async () => {
    const running = await worker();
    try {
      const { id } = await submitRun(read(source.sim.url));
      await vi.waitFor(async () => expect((await runRows(state.db))[0]).toMatchObject({ id, status: 'succeeded' }), {
        timeout: 20_000,
      });
      expect((await runRows(state.db))[0]).toMatchObject({ records_processed: SIZE });
      const events = await state.client.xrange(state.queues.reads.keys.events!, '-', '+');
      expect(events.filter(([, fields]) => fields.includes('progress'))).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('a read whose checkpoint another holder moved goes back to the queue and ends succeeded', async () => {
    const other = postgresSink(state.db.pools[1]);
    // Another holder of the stream moves its checkpoint as this run's third page is asked for. The
    // run commits page 2 meanwhile (it writes one page behind its reads): read it again until moved.
    const pagesAsked = (incoming: IncomingMessage) =>
      incoming.method === 'GET' && /\/projects\b/.test(incoming.url ?? '');
    const proxy = await startGateProxy(source.sim.url, pagesAsked, async (count) => {
      if (count !== 3) return;
      for (let moved = 'skipped'; moved !== 'written'; ) {
        const current = await other.checkpoint(STREAM);
        const checkpoint = { ...(current as object), seen_ids: ['other'] };
        moved = await other.write(STREAM, { records: [], checkpoint }, current);
      }
    });
    const running = await worker();
    const taken: string[] = [];
    running.workers.reads.on('active', (job) => taken.push(String(job.id)));
    try {
      const { id, run } = await submitRun({ ...read(proxy.url), follow: {} });
      expect(run).toMatchObject({ status: 'succeeded', error: null });
      expect(taken).toEqual([id, id]);
      const [row] = await runRows(state.db);
      expect(row).toMatchObject({ status: 'succeeded', retry_count: 0 });
    } finally {
      await running.close();
      await proxy.close();
    }
  });

  it('refuses a sink it does not know, naming the field, before anything is reached', async () => {
    await expect(
      startWorker({
        redis: state.redis.url,
        postgres: state.db.url,
        concurrency: 1,
        resolveCredential: () => undefined,
        sink: 'jsonl' as 'postgres',
      }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('sink') });
  });
});
