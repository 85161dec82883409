import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  bearerToken,
  createTransport,
  cursorPaginator,
  defineAction,
  defineConnector,
  type Incremental,
  readAll,
  SchemaMismatchError,
  type Transport,
} from '@plugboard/sdk';
import { manualClock } from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument, operationsOf } from '../src/openapi-document.js';
import { type DeclaredPaging, detectPaging } from '../src/openapi-paging.js';

/**
 * Box's events (test/documents/box-openapi.json, as Box publishes it) page by a query parameter
 * no list of cursor names holds: `stream_position`, sent back from the answer's
 * `next_stream_position` (a string or an integer). The scaffold declares that cursor, and
 * `plugboard mock` serves the events chained by it, from the same reading of the document; and
 * since Box gives a next position after its last event too, the read also ends at an empty page.
 * The events are read incrementally on `created_at` from `created_after`, told apart by
 * `event_id`, which Box sends on every event though its schema requires nothing.
 */

const BOX = join(import.meta.dirname, 'documents', 'box-openapi.json');
const DAY = manualClock(Date.UTC(2026, 0, 8, 12));

let transport: Transport;
let mock: MockServer | undefined;
let box: Server | undefined;
beforeEach(() => {
  transport = createTransport();
});
afterEach(async () => {
  await transport.close();
  await mock?.close();
  mock = undefined;
  box?.close();
  box = undefined;
});

/** What the scaffold declares for Box's get_events. */
async function eventsPaging(): Promise<DeclaredPaging> {
  const document = await loadOpenApiDocument(BOX);
  const events = operationsOf(document).find(({ operation }) => operation.operationId === 'get_events')!;
  const answer = events.operation.responses?.['200']?.content?.['application/json']?.schema;
  return detectPaging({ path: events.path, parameters: events.parameters, answer, headers: [] });
}

/** The incremental declaration the scaffold writes for what it detected. */
async function eventsIncremental(): Promise<Incremental<unknown>> {
  const { incremental } = await eventsPaging();
  if (!incremental) throw new Error('events.get is not incremental');
  return {
    cursorField: incremental.cursorField,
    ...(incremental.tieBreaker ? { tieBreaker: incremental.tieBreaker } : {}),
    checkpoint: z.object({ [incremental.query]: z.string(), seen_ids: z.array(z.string()) }),
    newerThan: { query: incremental.query, format: incremental.format, earlierMs: 1 },
    order: incremental.order,
  };
}

/** A connector reading Box's events through the scaffold's paginator, 500 a page as the scaffold asks. */
async function eventsSource(incremental?: Incremental<unknown>) {
  const { paginator } = await eventsPaging();
  if (paginator?.kind !== 'cursor') throw new Error(`no cursor paginator: ${JSON.stringify(paginator)}`);
  return defineConnector({
    key: 'box-events',
    name: 'Box events',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: "Box's events read page by page.",
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'events.get',
        label: 'List events',
        direction: 'source',
        entity: z
          .looseObject({ event_id: z.string().optional(), created_at: z.string().optional() })
          .meta({ id: 'BoxEvent' }),
        input: z.object({}),
        paginator: cursorPaginator(paginator.options),
        ...(incremental ? { incremental } : {}),
        read: (ctx) => ctx.pages({ method: 'GET', path: '/events', query: { limit: 500 } }),
      }),
    ],
  });
}

const readEvents = async (baseUrl: string, incremental?: Incremental<unknown>) =>
  readAll(await eventsSource(incremental), 'events.get', {
    input: {},
    connection: { baseUrl },
    credential: () => 'stand-in-token',
    transport,
    log: () => undefined,
  });

describe("Box's events, paged by stream_position", () => {
  it('the scaffold declares the cursor sent back from next_stream_position, stopped at an empty page', async () => {
    const paging = await eventsPaging();
    expect(paging.paginator).toEqual({
      kind: 'cursor',
      options: {
        records: 'entries',
        cursor: { from: 'next_stream_position', to: { query: 'stream_position' } },
        stop: ['empty-page'],
      },
    });
    expect(paging.pageSize).toEqual({ param: 'limit', value: 500 });
    expect(paging.incremental).toEqual({
      cursorField: 'created_at',
      tieBreaker: 'event_id',
      query: 'created_after',
      format: 'iso',
      order: 'newest-first',
    });
  });

  it('plugboard mock serves GET /events in pages chained by next_stream_position, and the declared paginator reads them all', async () => {
    mock = await startMockServer(await loadOpenApiDocument(BOX), { records: 1200, clock: DAY });
    expect(mock.lists.find((list) => list.path === '/events')?.paging).toMatch(
      /^cursor in query\.stream_position, next cursor at next_stream_position; limit 100 \(max 500\); filters created_after \(after\), created_before \(before\)$/,
    );
    // As a client that knows nothing but the document: follow next_stream_position until it is gone.
    const sizes: number[] = [];
    let position: string | undefined;
    do {
      const url = `${mock.url}/events?limit=500${position ? `&stream_position=${encodeURIComponent(position)}` : ''}`;
      const answer = await fetch(url, { headers: { authorization: 'Bearer stand-in-token' } });
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as { entries: unknown[]; next_stream_position?: string };
      sizes.push(page.entries.length);
      position = page.next_stream_position;
    } while (position !== undefined && sizes.length < 10);
    expect(sizes).toEqual([500, 500, 200]);

    const { records, pages } = await readEvents(mock.url);
    expect(pages).toBe(3);
    // What the incremental read goes by is on every event, though Box's schema leaves it optional.
    expect(records.filter((record) => typeof (record as { created_at?: unknown }).created_at !== 'string')).toEqual([]);
    expect(new Set(records.map((record) => (record as { event_id: string }).event_id)).size).toBe(1200);
  });

  it('a next position after the last event, as Box gives: the read ends at the empty page', async () => {
    const events = Array.from({ length: 700 }, (_, at) => ({ type: 'event', event_id: `e${at}` }));
    const asked = await serveBox(events);
    const { records, pages } = await readEvents(boxUrl());
    expect(records).toHaveLength(700);
    expect(pages).toBe(3);
    expect(asked).toEqual(['start', '500', '700']);
  });

  it('an event without event_id: delivered below the newest instant; at it, where the checkpoint needs the id, a typed schema_mismatch naming event_id', async () => {
    const incremental = await eventsIncremental();
    // Newest first, as the scaffold declares: only the events at the newest instant go into the checkpoint.
    const at = (second: number) => `2026-01-07T10:00:${String(second).padStart(2, '0')}Z`;
    await serveBox([
      { event_id: 'e3', created_at: at(30) },
      { event_id: 'e2', created_at: at(20) },
      { created_at: at(10) },
    ]);
    const read = await readEvents(boxUrl(), incremental);
    expect(read.records).toHaveLength(3);
    expect(read.checkpoint).toEqual({ created_after: at(30), seen_ids: ['e3'] });
    box?.close();

    await serveBox([{ created_at: at(30) }, { event_id: 'e2', created_at: at(20) }]);
    const refused = await readEvents(boxUrl(), incremental).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaMismatchError);
    expect(refused).toMatchObject({ code: 'schema_mismatch', retryable: false, issues: [{ path: 'event_id' }] });
  });
});

/** Box's own way of paging: every answer has a next position; past the last event the page is empty. The positions asked for. */
async function serveBox(events: readonly unknown[]): Promise<string[]> {
  const asked: string[] = [];
  box = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    const from = Number(url.searchParams.get('stream_position') ?? '0');
    const limit = Number(url.searchParams.get('limit'));
    asked.push(url.searchParams.get('stream_position') ?? 'start');
    const entries = events.slice(from, from + limit);
    const body = { chunk_size: entries.length, next_stream_position: String(from + entries.length), entries };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }).listen(0, '127.0.0.1');
  await once(box, 'listening');
  return asked;
}

const boxUrl = () => `http://127.0.0.1:${(box!.address() as AddressInfo).port}`;
