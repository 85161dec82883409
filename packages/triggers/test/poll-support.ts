import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken, createTransport, defineAction, defineConnector, type Transport } from '@plugboard/sdk';
import { fileStore } from '@plugboard/runtime';
import { z } from 'zod';
import { executorPollStarter, type RunEnd, type StartPoll } from '../src/index.js';

/**
 * What the poll tests share: a feed provider started on 127.0.0.1:0 that lists items newer than
 * `updated_after`, counts the requests it holds at once and can hold its answers until the test
 * releases them; a small incremental source over it; the executor's poll starter on the state
 * folder's file stores; a poll trigger in the platform's PollTrigger shape.
 */

export const TOKEN = 'feed-token-3f9a1c7e5b2d';

export interface Item {
  id: string;
  updated_at: string;
}

export const at = (minute: number) => new Date(Date.UTC(2025, 11, 31, 0, minute)).toISOString();

export async function startFeed(items: Item[]) {
  const seen = { requests: 0, inFlight: 0, maxInFlight: 0, after: [] as (string | null)[] };
  let failNext = 0;
  let held: Array<() => void> | undefined;
  const arrivals: Array<() => void> = [];
  const server = createServer((request, response) => {
    const after = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('updated_after');
    seen.requests += 1;
    seen.inFlight += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    seen.after.push(after);
    for (const arrived of arrivals.splice(0)) arrived();
    const answer = () => {
      seen.inFlight -= 1;
      if (failNext > 0) {
        failNext -= 1;
        // A hostile answer: it echoes the credential it was sent.
        response.writeHead(403, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ message: `forbidden for ${request.headers.authorization}` }));
      }
      const data = items.filter((item) => after === null || item.updated_at > after);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data }));
    };
    if (held) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    items,
    /** The next `count` requests are answered 403. */
    fail: (count = 1) => void (failNext = count),
    /** Answers are held until `release`. */
    hold: () => void (held = []),
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    /** Resolves once the provider has taken `count` requests in all. */
    arrived: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (seen.requests >= count ? resolve() : arrivals.push(check));
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const FeedItem = z.object({ id: z.string(), updated_at: z.string() }).meta({ id: 'FeedItem' });

export const feed = defineConnector({
  key: 'feed',
  name: 'Feed',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Items read incrementally by polls.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'items.list',
      label: 'List items',
      direction: 'source',
      entity: FeedItem,
      input: z.object({}),
      incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) },
      async *read(ctx) {
        const page = await ctx.http.get<{ data: Item[] }>('/items', {
          query: { updated_after: ctx.checkpoint?.updated_after },
        });
        const last = page.data.at(-1);
        yield { records: page.data, ...(last ? { checkpoint: { updated_after: last.updated_at } } : {}) };
      },
    }),
  ],
});

/** A poll trigger as the platform gives it, reading the feed at `url`; `fields` replace or add. */
export function pollTrigger(url: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pollTriggerId: 'poll_items',
    flowId: 'flow_2',
    name: 'Items',
    kind: 'poll',
    connectionId: 'feed-main',
    operationKey: 'items.list',
    status: 'active',
    state: 'active',
    stateMessage: null,
    lastCheckedAt: null,
    nextCheckAt: null,
    intervalMinutes: 5,
    environment: 'sandbox',
    run: { connector: 'feed', action: 'items.list', connection: { id: 'feed-main', baseUrl: url } },
    ...fields,
  };
}

const transports: Transport[] = [];

/** Closes the transports of the test's starters: call it from the test file's own `afterEach`. */
export async function closeTransports(): Promise<void> {
  for (const transport of transports.splice(0)) await transport.close();
}

/** The executor's poll starter on the state folder's file stores; the records of each poll, and each poll's end. */
export function pollStarter(stateDir: string): { startPoll: StartPoll; read: unknown[][]; ends: Promise<RunEnd>[] } {
  const transport = createTransport();
  transports.push(transport);
  const read: unknown[][] = [];
  const start = executorPollStarter(
    {
      connectors: [feed],
      resolveCredential: () => TOKEN,
      stores: fileStore(`${stateDir}/runs`),
      transport,
      log: () => undefined,
    },
    { onPage: (page) => void read.at(-1)!.push(...page.records) },
  );
  const ends: Promise<RunEnd>[] = [];
  return {
    read,
    ends,
    startPoll: (poll) => {
      read.push([]);
      const end = start(poll);
      ends.push(end);
      return end;
    },
  };
}
