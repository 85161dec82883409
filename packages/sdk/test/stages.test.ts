import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector, readAll, type Transport } from '../src/index.js';
import { type Answer, createHostTransport, type HttpStage, manualClock, Redactor } from '../src/host.js';
import { Item } from './support/connector.js';
import { json, startServer, type TestServer } from './support/server.js';

/** What a host adds to every run's pipeline, and what the stages publish on diagnostics channels. */

const CREDENTIAL = 'sekret-credential-777';
const item = (id: string) => ({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' });

/** One GET whose path and query carry what the input gives: here, the credential itself. */
const echoing = defineConnector({
  key: 'echoing',
  name: 'Echoing',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'One read whose URL carries its input.',
  auth: bearerToken(),
  rateLimits: { default: { limit: 1_000, per: 'second' } },
  actions: [
    defineAction({
      key: 'items.get',
      label: 'Get',
      direction: 'source',
      entity: Item,
      input: z.object({ id: z.string() }),
      async *read(ctx, input) {
        yield {
          records: [await ctx.http.get('/items/{id}', { params: { id: input.id }, query: { token: input.id } })],
        };
      },
    }),
  ],
});

let transport: Transport | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await server?.close();
  server = undefined;
});

function get(id: string, options: { environment?: 'sandbox' | 'production' } = {}) {
  return readAll(echoing, 'items.get', {
    input: { id },
    connection: { baseUrl: server!.url },
    credential: () => CREDENTIAL,
    transport,
    retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 },
    log: () => undefined,
    ...options,
  });
}

describe('host stages', () => {
  it('sees every request, before the credential is added', async () => {
    server = await startServer((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    const seen: { operation: string; headers: Record<string, string>; connector: string }[] = [];
    const observe: HttpStage = (next, run) => (call) => {
      seen.push({ operation: call.operation, headers: { ...call.headers }, connector: run.connector });
      return next(call);
    };
    transport = createHostTransport({ stages: [observe] });
    await get('a');
    await get('b');
    expect(seen.map((entry) => [entry.connector, entry.operation])).toEqual([
      ['echoing', 'GET /items/a'],
      ['echoing', 'GET /items/b'],
    ]);
    expect(seen.every((entry) => !('authorization' in entry.headers))).toBe(true);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${CREDENTIAL}`,
      `Bearer ${CREDENTIAL}`,
    ]);
  });

  it('answers from a cache without reaching the provider', async () => {
    server = await startServer((req, res) => json(res, 200, item(req.path.split('/').pop()!)));
    const cache = new Map<string, Answer>();
    const caching: HttpStage = (next) => async (call) => {
      const key = `${call.method} ${call.url.href}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const answer = await next(call);
      if (answer.status === 200) cache.set(key, answer);
      return answer;
    };
    transport = createHostTransport({ stages: [caching] });
    const first = await get('a');
    const second = await get('a');
    expect(second.records).toEqual(first.records);
    expect(server.requests).toHaveLength(1);
  });
});

describe('diagnostics channels', () => {
  const names = [
    'plugboard:http:request:start',
    'plugboard:http:request:end',
    'plugboard:http:budget:wait',
    'plugboard:http:retry',
    'plugboard:http:refused',
    'plugboard:http:redirect',
    'plugboard:http:exchange:start',
    'plugboard:http:exchange:end',
  ];

  it('tell what each stage does, and never carry the credential in any form', async () => {
    const messages: { name: string; message: unknown }[] = [];
    const listeners = names.map((name) => {
      const listener = (message: unknown) => void messages.push({ name, message });
      subscribe(name, listener);
      return [name, listener] as const;
    });
    try {
      let calls = 0;
      const echo = { 'x-request-id': `req-${CREDENTIAL}` };
      server = await startServer((req, res) => {
        calls += 1;
        if (req.path.startsWith('/items/later')) {
          json(res, 429, { message: `hourly quota of ${CREDENTIAL} spent` }, { ...echo, 'retry-after': '3600' });
        } else if (calls === 1) {
          json(res, 429, { message: `slow down, ${CREDENTIAL}` }, { ...echo, 'retry-after': '1' });
        } else if (req.path.startsWith('/items/')) {
          res.writeHead(302, { location: `/moved/${CREDENTIAL}?token=${CREDENTIAL}`, ...echo });
          res.end();
        } else json(res, 200, item('moved'), echo);
      });
      const clock = manualClock();
      transport = createHostTransport({ clock });
      // A 429 (retried after a backoff and the budget's pause), then a redirect, then the answer.
      await clock.runUntil(get(CREDENTIAL));
      // A production run may not reach 127.0.0.1.
      await expect(get(CREDENTIAL, { environment: 'production' })).rejects.toThrow();
      // A Retry-After longer than the action waits fails at once; the next call is refused by the paused budget.
      await expect(get(`later-${CREDENTIAL}`)).rejects.toThrow(/retry|quota/i);
      await expect(get(`later-again-${CREDENTIAL}`)).rejects.toThrow(/paused for 3600 s/);

      const seen = new Set(messages.map((entry) => entry.name));
      expect([...seen].sort()).toEqual([...names].sort());
      const refusals = messages.filter((entry) => entry.name === 'plugboard:http:refused');
      expect(refusals.map((entry) => (entry.message as { reason: string }).reason).sort()).toEqual([
        'budget',
        'network',
      ]);
      const wait = messages.find((entry) => entry.name === 'plugboard:http:budget:wait')!.message as { waitMs: number };
      expect(wait.waitMs).toBeGreaterThan(0);
      const ends = messages.filter((entry) => entry.name === 'plugboard:http:request:end');
      expect((ends[0]!.message as { status: number }).status).toBe(200);
      expect(new Redactor([CREDENTIAL]).containsSecretIn(messages)).toBe(false);
      expect(JSON.stringify(messages)).not.toContain('sekret');
    } finally {
      for (const [name, listener] of listeners) unsubscribe(name, listener);
    }
  });
});
