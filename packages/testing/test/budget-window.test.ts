import {
  bearerToken,
  createTransport,
  RateLimitedError,
  defineAction,
  defineConnector,
  type RateBudget,
  readAll,
  type Transport,
} from '@plugboard/sdk';
import { createHostTransport, type ManualClock, manualClock } from '@plugboard/sdk/host';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startWindowServer, type WindowServer, type WindowServerOptions } from '../src/window-server.js';

/**
 * The SDK's declared rate budgets against a strict sliding-window provider:
 * what counts is what the provider saw, counted by arrival (no more than
 * `limit` arrivals in any period, not one 429), however late requests arrive.
 * The provider reads the wall clock, as a real one does.
 */

const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'WindowItem' });

function connectorWith(budget: RateBudget | undefined) {
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
    ...(budget ? { rateLimits: { default: budget } } : {}),
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
let clock: ManualClock | undefined;
afterEach(async () => {
  await transport?.close();
  transport = undefined;
  clock = undefined;
  await server?.close();
});

/** Exchanges the transport has under way (sent, answer not yet read). */
let exchanges = 0;
const started = () => void (exchanges += 1);
const ended = () => void (exchanges -= 1);
beforeAll(() => {
  subscribe('plugboard:http:exchange:start', started);
  subscribe('plugboard:http:exchange:end', ended);
});
afterAll(() => {
  unsubscribe('plugboard:http:exchange:start', started);
  unsubscribe('plugboard:http:exchange:end', ended);
});

/** A window server on a manual clock the transport shares. */
function onClock(options: Omit<WindowServerOptions, 'clock' | 'now'>): Promise<WindowServer> {
  clock = manualClock();
  transport = createHostTransport({ clock });
  return startWindowServer({ ...options, clock });
}

/** `total` runs from `callers` concurrent callers, each one request admitted. */
async function callers(connector: ReturnType<typeof connectorWith>, count: number, total: number): Promise<void> {
  transport ??= createTransport();
  let next = 0;
  const all = Promise.all(
    Array.from({ length: count }, async () => {
      while (next < total) {
        const id = String((next += 1));
        // A refused request is sent again (the server counts each 429) until it is admitted.
        for (;;) {
          try {
            await readAll(connector, 'items.get', {
              input: { id },
              connection: { baseUrl: server!.url },
              credential: () => 'window-credential-1234',
              transport,
              log: () => undefined,
            });
            break;
          } catch (error) {
            if (!(error instanceof RateLimitedError)) throw error;
          }
        }
      }
    }),
  );
  // Time moves only when every exchange under way is an answer the server holds for its delay.
  await (clock ? clock.runUntil(all, () => exchanges === server!.delayed) : all);
}

describe('a declared budget against a strict sliding-window provider', () => {
  const budget: RateBudget = { limit: 4, per: 'second' };

  it('keeps every second to the limit by arrival, with no 429, from 12 concurrent callers', async () => {
    server = await onClock({ limit: 4, periodMs: 1_000 });
    await callers(connectorWith(budget), 12, 10);
    expect({ admitted: server.admitted, rejected: server.rejected }).toEqual({ admitted: 10, rejected: 0 });
    expect(server.peakInWindow).toBe(4);
  });

  it('holds when the provider answers the first window 100 ms late: a place is held until a period after the answer', async () => {
    server = await onClock({ limit: 4, periodMs: 1_000, delayFirstMs: 100 });
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

describe('an undeclared budget against a strict sliding-window provider', () => {
  // A Retry-After of the whole period: never earlier than the window has room, as a provider's.
  const strict = (limit: number) => onClock({ limit, periodMs: 100, retryAfterSeconds: 0.1 });

  it('meets one 429 from 32 callers, which teaches it the window: none after', async () => {
    server = await strict(4);
    await callers(connectorWith(undefined), 32, 40);
    // Until the provider first refuses, one request is in flight at a time, so its refusal meets
    // one request, not the 28 that 32 callers would have in flight (one more if a loaded machine
    // made that run too slow to learn from); meeting the window anew each time would meet at
    // least one in each of the other nine.
    expect({ admitted: server.admitted, peak: server.peakInWindow }).toEqual({ admitted: 40, peak: 4 });
    expect(server.rejected).toBeLessThanOrEqual(2);
  });

  it('sends side by side from the start, with no 429, when the provider says how many places remain', async () => {
    server = await onClock({ limit: 6, periodMs: 500, remainingHeader: true, delayMs: () => 250 });
    await callers(connectorWith(undefined), 12, 12);
    expect({ admitted: server.admitted, rejected: server.rejected }).toEqual({ admitted: 12, rejected: 0 });
    // One at a time, each request would reach the provider only after the answer before it
    // (250 ms): the five the first answer's `X-RateLimit-Remaining: 5` allowed went together.
    expect(server.arrivals[5]! - server.arrivals[1]!).toBeLessThan(250);
  });

  it('forgets a learned window the provider refuses, and learns the narrower one', async () => {
    server = await strict(4);
    const connector = connectorWith(undefined);
    await callers(connector, 4, 12);
    await server.close();
    // The same connection's budget (the same transport and clock) meets a provider that now allows 2 per period.
    server = await startWindowServer({ limit: 2, periodMs: 100, retryAfterSeconds: 0.1, clock });
    await callers(connector, 4, 20);
    // The learned 4 meet one burst (2 of 4 refused), and the one-at-a-time run that learns
    // again one more; keeping 4 would meet 2 in each of the 10 windows.
    expect({ admitted: server.admitted, peak: server.peakInWindow }).toEqual({ admitted: 20, peak: 2 });
    expect(server.rejected).toBeLessThanOrEqual(5);
  });
});
