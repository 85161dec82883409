import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bearerToken,
  createTransport,
  defineAction,
  defineConnector,
  readAll,
  type Transport,
  writeAction,
} from '@plugboard/sdk';
import { prepareRun } from '@plugboard/sdk/host';
import { z } from 'zod';
import { answer, delay, type FaultServer, reset, startFaultServer, truncate } from '../src/index.js';

/** The fault server is a real HTTP server: these tests talk to it with fetch and through the SDK. */

const Thing = z.object({ id: z.string() }).meta({ id: 'FaultThing' });
/** Longer than any test may take: an answer held this long never comes while the test runs. */
const FOREVER_MS = 10 * 60_000;
const connector = defineConnector({
  key: 'faulty',
  name: 'Faulty',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'alpha',
  summary: 'Reads and writes things.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'things.get',
      label: 'Get a thing',
      direction: 'source',
      entity: Thing,
      input: z.object({}),
      async *read(ctx) {
        yield { records: [await ctx.http.get('/things/1')] };
      },
    }),
    defineAction({
      key: 'things.wait',
      label: 'Get a thing, waiting briefly',
      direction: 'source',
      entity: Thing,
      input: z.object({}),
      timeoutMs: 200,
      async *read(ctx) {
        yield { records: [await ctx.http.get('/things/1')] };
      },
    }),
    defineAction({
      key: 'things.buy',
      label: 'Buy a thing',
      direction: 'destination',
      entity: Thing,
      billable: true,
      retry: 'never',
      approval: 'always',
      input: z.object({}),
      async write(ctx) {
        return ctx.http.post('/things', {});
      },
    }),
  ],
});

let server: FaultServer;
let transport: Transport;
beforeEach(async () => {
  server = await startFaultServer();
  transport = createTransport();
});
afterEach(async () => {
  await transport.close();
  await server.close();
});

const options = () => ({
  input: {},
  connection: { baseUrl: server.url },
  credential: () => 'fault-test-token',
  transport,
  retry: { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 },
  log: () => undefined,
});
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code: string; message: string },
  );

describe('answer', () => {
  it('answers with the given status, headers and JSON body, and keeps every request', async () => {
    server.answer({ status: 418, headers: { 'x-fault': 'yes' }, body: { message: 'teapot' } });
    const response = await fetch(`${server.url}/brew?cup=1`, {
      method: 'POST',
      body: 'earl grey',
      headers: { 'x-client': 'test' },
    });
    expect(response.status).toBe(418);
    expect(response.headers.get('x-fault')).toBe('yes');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ message: 'teapot' });
    expect(server.count).toBe(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/brew', body: 'earl grey' });
    expect(server.requests[0]!.query.get('cup')).toBe('1');
    expect(server.requests[0]!.headers['x-client']).toBe('test');
  });

  it('sends text bodies as text', async () => {
    server.answer({ status: 500, body: 'plain failure' });
    const response = await fetch(server.url);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toBe('plain failure');
  });

  it('plays queued faults one request each, then the default again; a function may decide', async () => {
    server
      .next(answer({ status: 503 }), answer({ status: 502 }))
      .otherwise((request) => answer({ status: 200, body: { path: request.path } }));
    const statuses = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await fetch(`${server.url}/p${index}`)).status);
    expect(statuses).toEqual([503, 502, 200]);
    expect(await (await fetch(`${server.url}/last`)).json()).toEqual({ path: '/last' });
    expect(server.clear().count).toBe(0);
  });

  it('lets a source through a 503 by retrying, and counts exactly the requests made', async () => {
    server.next(answer({ status: 503, body: { message: 'down' } })).answer({ body: { id: 't1' } });
    expect((await readAll(connector, 'things.get', options())).records).toEqual([{ id: 't1' }]);
    expect(server.count).toBe(2);
  });
});

describe('delay', () => {
  it('holds the answer back', async () => {
    server.answer({ body: { id: 'slow' } }).delay(120);
    const started = performance.now();
    const response = await fetch(server.url);
    expect(await response.json()).toEqual({ id: 'slow' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('makes the SDK time out once the action has waited long enough', async () => {
    server.otherwise(delay(FOREVER_MS, answer({ body: { id: 'late' } })));
    const error = await failure(readAll(connector, 'things.wait', { ...options(), retry: { retries: 0 } }));
    expect(error?.code).toBe('timeout');
  });
});

describe('reset', () => {
  it('drops the connection without an answer', async () => {
    server.reset();
    await expect(fetch(server.url)).rejects.toThrow();
    expect(server.count).toBe(1);
  });

  it('is a network error: a source retries it, a billable destination sends exactly one request', async () => {
    server.reset();
    expect((await failure(readAll(connector, 'things.get', options())))?.code).toBe('network_error');
    expect(server.count).toBe(3);
    server.clear();
    const { digest } = prepareRun(connector, 'things.buy', { input: {}, connection: { baseUrl: server.url } }).binding;
    const approval = {
      digest,
      requestedBy: 'test-requester',
      decidedBy: 'test-approver',
      decision: 'approved' as const,
      expiresAt: null,
    };
    expect((await failure(writeAction(connector, 'things.buy', { ...options(), approval })))?.code).toBe(
      'network_error',
    );
    expect(server.count).toBe(1);
  });
});

describe('truncate', () => {
  it('sends the headers with the full length, part of the body, then closes', async () => {
    server.truncate({ body: { data: 'y'.repeat(200) } });
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('is a network error for the SDK, never a half-read record', async () => {
    server.next(truncate(), truncate(), truncate());
    expect((await failure(readAll(connector, 'things.get', options())))?.code).toBe('network_error');
    expect(server.count).toBe(3);
  });
});

describe('close', () => {
  it('ends pending delays and open connections at once', async () => {
    // Were close() to wait for the delay, this test would run out of time.
    server.otherwise(delay(FOREVER_MS));
    const pending = fetch(server.url).catch((error: unknown) => error);
    while (server.count === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
    server = await startFaultServer(reset());
  });
});
