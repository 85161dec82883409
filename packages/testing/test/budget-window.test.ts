import { bearerToken, createTransport, defineAction, defineConnector, type RateBudget, readAll, type Transport } from '@plugboard/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startWindowServer, type WindowServer } from '../src/window-server.js';

/**
 * The SDK's declared rate budgets against a strict sliding-window provider:
 * what counts is what the provider saw, counted by arrival (no more than
 * `limit` arrivals in any period, not one 429), however late requests arrive.
 * The provider reads the wall clock, as a real one does.
 */

const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'WindowItem' });

function connectorWith(budget: RateBudget) {
  return defineConnector({
    key: 'windowed',
    name: 'Windowed',
    version: '1.0.0',
    vendor: 'Plugboard',
    category: 'developer',
    status: 'alpha',
    summary: 'One request per run, on a declared budget.',
    auth: bearerToken(),
    baseUrl: 'http://127.0.0.1:9',
    rateLimits: { default: budget },
    actions: [
      defineAction({
        key: 'items.get',
        label: 'Get an item',
        description: 'One item.',
        direction: 'source',
        entity: Item,
        input: z.object({ id: z.string() }),
        // A 429 must show at the server, not be retried away.
        retry: 'never',
        async *read(ctx, input) {
          yield { records: [await ctx.http.get(`/items/${input.id}`)] };
        },
      }),
    ],
  });
}

let server: WindowServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
});

/** `total` runs from `callers` concurrent callers, each one request. */
async function callers(connector: ReturnType<typeof connectorWith>, count: number, total: number): Promise<void> {
  transport = createTransport();
  let next = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (next < total) {
        const id = String((next += 1));
        await readAll(connector, 'items.get', { input: { id }, connection: { baseUrl: server!.url }, credential: () => 'window-credential-1234', transport, log: () => undefined });
      }
    }),
  );
}

describe('a declared budget against a strict sliding-window provider', () => {
  const budget: RateBudget = { limit: 4, per: 'second' };

  it('keeps every second to the limit by arrival, with no 429, from 12 concurrent callers', async () => {
    server = await startWindowServer({ limit: 4, periodMs: 1_000, now: Date.now });
    await callers(connectorWith(budget), 12, 10);
    expect({ admitted: server.admitted, rejected: server.rejected }).toEqual({ admitted: 10, rejected: 0 });
    expect(server.peakInWindow).toBe(4);
  });

  it('holds when the provider answers the first window 100 ms late: a place is held until a period after the answer', async () => {
    server = await startWindowServer({ limit: 4, periodMs: 1_000, delayFirstMs: 100, now: Date.now });
    await callers(connectorWith(budget), 12, 10);
    expect({ admitted: server.admitted, rejected: server.rejected }).toEqual({ admitted: 10, rejected: 0 });
  });

  it('holds while the event loop is kept busy (answers read late)', async () => {
    server = await startWindowServer({ limit: 4, periodMs: 1_000, now: Date.now });
    // Blocks the loop 40 ms out of every 50: timers and answers are handled late.
    const busy = setInterval(() => {
      const until = performance.now() + 40;
      while (performance.now() < until);
    }, 50);
    try {
      await callers(connectorWith(budget), 12, 10);
    } finally {
      clearInterval(busy);
    }
    expect({ admitted: server.admitted, rejected: server.rejected }).toEqual({ admitted: 10, rejected: 0 });
  });
});
