import type { LookupAddress, LookupOptions } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../src/clock.js';
import { createHostTransport } from '../src/host.js';
import { partsOf } from '../src/http/transport.js';
import { readAll, type Transport } from '../src/index.js';
import { itemsGetConnector } from './support/connector.js';
import { credential } from './support/harness.js';

/**
 * A budget pause holds every request not yet written, whichever way requests are sent: a
 * request let in before the pause, still waiting for its connection when the 429 came back,
 * must not reach the provider; only the probe goes once the pause ends. The calls go to
 * `provider.test`, whose connections wait on the test's resolver until it lets them go;
 * another run of the same connection meets the 429 meanwhile through `trigger.test`. Both
 * names are 127.0.0.1, and both runs draw on the same budget.
 */

const CALLS = 20;

/** A provider counting arrivals by host, and the connections that closed without carrying a request. */
async function startProvider() {
  const counts = { arrivals: 0, providerArrivals: 0, refused: 0, emptyClosed: 0 };
  let refusing = false;
  const carried = new WeakSet<Socket>();
  const server: Server = createServer((request, response) => {
    carried.add(request.socket);
    counts.arrivals += 1;
    if (request.headers.host?.startsWith('provider.test')) counts.providerArrivals += 1;
    request.resume();
    if (refusing) {
      counts.refused += 1;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
      response.end(JSON.stringify({ message: 'slow down' }));
      return;
    }
    const id = request.url?.split('/').pop() ?? '';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' }));
  });
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => {
      if (!carried.has(socket)) counts.emptyClosed += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    counts,
    port: (server.address() as AddressInfo).port,
    refuse(yes: boolean) {
      refusing = yes;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every name is 127.0.0.1; lookups of `provider.test` wait for `release()`. */
function heldLookup() {
  let released = false;
  const parked: (() => void)[] = [];
  const lookup = (hostname: string, options: LookupOptions, callback: Parameters<LookupFunction>[2]) => {
    const answer = () => {
      const address: LookupAddress = { address: '127.0.0.1', family: 4 };
      if (options.all) callback(null, [address]);
      else callback(null, address.address, address.family);
    };
    if (hostname !== 'provider.test' || released) queueMicrotask(answer);
    else parked.push(answer);
  };
  return {
    lookup: lookup as LookupFunction,
    get parked() {
      return parked.length;
    },
    release() {
      released = true;
      for (const answer of parked.splice(0)) answer();
    },
  };
}

/** Waits for a condition the test's own server, resolver and budget make true; no time is measured. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

let transport: Transport | undefined;
let provider: Awaited<ReturnType<typeof startProvider>> | undefined;
afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await provider?.close();
  provider = undefined;
});

describe.each(['undici', 'fetch', 'http'] as const)('a budget pause, sending through %s', (via) => {
  it('holds the requests still waiting for a connection: none reaches the provider before the probe', async () => {
    provider = await startProvider();
    const clock = manualClock();
    const resolver = heldLookup();
    transport = createHostTransport({ via, clock, network: { lookup: resolver.lookup } });
    // A declared budget that does not bind: every call is let in at once.
    const connector = itemsGetConnector({
      key: 'unbound',
      name: 'Unbound',
      summary: 'A budget far above what the test sends.',
      rateLimits: { default: { limit: 1_000_000, per: 'second' } },
    });
    const budget = partsOf(transport).budgets.get('unbound', 'default', 'default', connector.rateLimits.default);
    const call = (host: string, id: string) =>
      readAll(connector, 'items.get', {
        input: { id },
        connection: { baseUrl: `http://${host}:${provider!.port}` },
        credential,
        transport,
        log: () => undefined,
      });
    // A first call confirms the budget open (at the start one request goes alone, as a probe).
    await call('trigger.test', 'first');
    const calls = Array.from({ length: CALLS }, (_, index) => call('provider.test', `i${index}`));
    await until(() => resolver.parked === CALLS);
    // The provider starts refusing; another request meets it, and the budget pauses for 30 s.
    provider.refuse(true);
    const trigger = call('trigger.test', 'trigger');
    await until(() => budget.state().pausedUntil > clock.now());
    resolver.release();
    // Every waiting connection opens, and either carries its request or closes without one.
    await until(() => provider!.counts.providerArrivals + provider!.counts.emptyClosed >= CALLS);
    expect(provider.counts.providerArrivals).toBe(0);
    // The pause ends: the probe goes, comes back, and the others follow.
    provider.refuse(false);
    await clock.advance(30_000);
    const results = await Promise.allSettled([...calls, trigger]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(CALLS + 1);
    expect(provider.counts).toMatchObject({ providerArrivals: CALLS, refused: 1 });
  });
});
