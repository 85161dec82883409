import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  apiKeyHeader,
  bearerToken,
  type DestinationAction,
  DefinitionError,
  defineAction,
  defineConnector,
  InvalidInputError,
  NetworkError,
  writeAction,
} from '../src/index.js';
import {
  createExecutor,
  type ExecuteRequest,
  IdempotencyUnsettledError,
  memoryStore,
  catalogueEntry,
} from '../src/host.js';
import { useHarness } from './support/harness.js';
import { json, type SeenRequest, type TestServer } from './support/server.js';

const h = useHarness();

/**
 * A strict provider that deduplicates orders on `Idempotency-Key`: a key seen before gets the
 * first answer again without a second effect, a key seen with another body is refused (422).
 * `lose(n)` makes it apply the next n orders and then drop the connection before answering.
 */
async function deduplicatingProvider() {
  const seen = new Map<string, { body: string; order: unknown }>();
  let effects = 0;
  let losing = 0;
  const server = await h.start((request, response) => {
    if (request.method === 'GET') return json(response, 200, { id: 'cus_1' });
    const key = request.headers['idempotency-key'];
    const first = typeof key === 'string' ? seen.get(key) : undefined;
    if (first && first.body !== request.body)
      return json(response, 422, { message: 'the key was used with another request' });
    let order = first?.order;
    if (!first) {
      effects += 1;
      order = { id: `ord_${effects}`, key: typeof key === 'string' ? key : null };
      if (typeof key === 'string') seen.set(key, { body: request.body, order });
    }
    if (losing > 0) {
      losing -= 1;
      response.socket?.destroy();
      return;
    }
    json(response, 201, order);
  });
  return {
    server,
    get effects() {
      return effects;
    },
    lose(times: number) {
      losing = times;
    },
    writes: () => server.requests.filter((request: SeenRequest) => request.method !== 'GET'),
  };
}

const Order = z.object({ id: z.string(), key: z.string().nullable(), sent: z.string().nullable() }).meta({
  id: 'IdempotentOrder',
});

function ordersCreate(extra: Partial<DestinationAction> = {}) {
  return defineAction({
    key: 'orders.create',
    label: 'Place an order',
    direction: 'destination',
    entity: Order,
    effect: { writes: true, idempotent: false, destructive: false },
    input: z.object({ quantity: z.number().int().positive() }),
    async write(ctx, input) {
      await ctx.http.get('/customers/me');
      const order = await ctx.http.post<{ id: string; key: string | null }>('/orders', input);
      return { ...order, sent: ctx.idempotencyKey ?? null };
    },
    ...extra,
  });
}

function shop(extra: Partial<DestinationAction> = {}) {
  return defineConnector({
    key: 'shop',
    name: 'Shop',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Orders at a provider that deduplicates on a key.',
    auth: bearerToken(),
    actions: [
      ordersCreate(extra),
      defineAction({ ...ordersCreate(extra), key: 'orders.reorder', label: 'Place the order again' }),
    ],
  });
}

const DEDUPLICATED = { idempotencyHeader: 'Idempotency-Key' };

function hostOf(connector: ReturnType<typeof shop>, server: TestServer, retries = 2) {
  const stores = memoryStore();
  const executor = createExecutor({
    connectors: [connector],
    resolveConnection: (id) => ({ id, baseUrl: server.url }),
    resolveCredential: () => 'shop-token-0f3a9c1e',
    stores,
    transport: h.transport,
    log: () => undefined,
    // No backoff: the retries go at once, whatever the clock.
    retry: { retries, minTimeoutMs: 0, maxTimeoutMs: 0 },
  });
  return { executor, idempotency: stores.idempotency };
}

const order = (idempotencyKey?: string, action = 'orders.create'): ExecuteRequest => ({
  connectorKey: 'shop',
  action,
  connectionId: 'c1',
  input: { quantity: 2 },
  ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
});

describe("a destination whose provider deduplicates on the run's idempotency key", () => {
  it('sends the key, derived per run, in the declared header of each write and not of a read; the action sees it', async () => {
    const provider = await deduplicatingProvider();
    const first = await hostOf(shop(DEDUPLICATED), provider.server).executor.execute(order('caller-key-1'));
    const result = first.direction === 'destination' ? (first.result as z.infer<typeof Order>) : undefined;
    const [read, write] = provider.server.requests;
    expect(read).toMatchObject({ method: 'GET' });
    expect(read!.headers['idempotency-key']).toBeUndefined();
    expect(write!.headers['idempotency-key']).toMatch(/^pb_[0-9a-f]{40}$/);
    expect(result).toEqual({
      id: 'ord_1',
      key: write!.headers['idempotency-key'],
      sent: write!.headers['idempotency-key'],
    });

    // The same caller key for another action, from a host with a store of its own, is another key at
    // the provider: it places a second order rather than meeting the first one's key (422).
    const other = hostOf(shop(DEDUPLICATED), provider.server).executor;
    expect(await other.execute(order('caller-key-1', 'orders.reorder'))).toMatchObject({ result: { id: 'ord_2' } });
    const keys = provider.writes().map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
    expect(provider.effects).toBe(2);
  });

  it('sends nothing and gives the action no key when the run has none', async () => {
    const provider = await deduplicatingProvider();
    const { executor } = hostOf(shop(DEDUPLICATED), provider.server);
    const outcome = await executor.execute(order());
    expect(outcome).toMatchObject({ result: { sent: null, key: null } });
    expect(provider.writes()[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('sends a write whose answer was lost again with the same key: the provider acted once', async () => {
    const provider = await deduplicatingProvider();
    const { executor, idempotency } = hostOf(shop(DEDUPLICATED), provider.server);
    provider.lose(1);
    const outcome = await executor.execute(order('lost-once'));
    const writes = provider.writes();
    expect(writes).toHaveLength(2);
    expect(writes[1]!.headers['idempotency-key']).toBe(writes[0]!.headers['idempotency-key']);
    expect(provider.effects).toBe(1);
    expect(outcome).toMatchObject({ replayed: false, result: { id: 'ord_1' } });
    expect(await idempotency.get('lost-once')).toMatchObject({ state: 'succeeded', result: { id: 'ord_1' } });
  });

  it('leaves the key free when the retries ran out: a repeat sends the same key, and the provider acted once', async () => {
    const provider = await deduplicatingProvider();
    const { executor, idempotency } = hostOf(shop(DEDUPLICATED), provider.server, 2);
    provider.lose(3);
    await expect(executor.execute(order('lost-thrice'))).rejects.toBeInstanceOf(NetworkError);
    expect(provider.writes()).toHaveLength(3);
    expect(await idempotency.get('lost-thrice')).toBeUndefined();

    const repeat = await executor.execute(order('lost-thrice'));
    expect(repeat).toMatchObject({ replayed: false, result: { id: 'ord_1' } });
    expect(new Set(provider.writes().map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(provider.effects).toBe(1);
  });

  it('does not retry a billable one in the pipeline; its key is left free for the caller to repeat', async () => {
    const provider = await deduplicatingProvider();
    const billable = shop({ ...DEDUPLICATED, billable: true, approval: 'production' });
    const { executor, idempotency } = hostOf(billable, provider.server);
    provider.lose(1);
    await expect(executor.execute(order('billable'))).rejects.toBeInstanceOf(NetworkError);
    expect(provider.writes()).toHaveLength(1);
    expect(await idempotency.get('billable')).toBeUndefined();
    expect(await executor.execute(order('billable'))).toMatchObject({ result: { id: 'ord_1' } });
    expect(provider.effects).toBe(1);
  });
});

describe("a destination that declares the header and retry: 'never'", () => {
  it('is not retried in the pipeline; its key is left free for the caller to repeat', async () => {
    const provider = await deduplicatingProvider();
    const { executor, idempotency } = hostOf(shop({ ...DEDUPLICATED, retry: 'never' }), provider.server);
    provider.lose(1);
    await expect(executor.execute(order('never'))).rejects.toBeInstanceOf(NetworkError);
    expect(provider.writes()).toHaveLength(1);
    expect(await idempotency.get('never')).toBeUndefined();
  });
});

describe('a destination without the declaration', () => {
  it('sends no key, does not send a lost write again, and leaves the key uncertain for an operator', async () => {
    const provider = await deduplicatingProvider();
    const { executor, idempotency } = hostOf(shop(), provider.server);
    provider.lose(1);
    await expect(executor.execute(order('undeclared'))).rejects.toBeInstanceOf(NetworkError);
    expect(provider.writes()).toHaveLength(1);
    expect(provider.writes()[0]!.headers['idempotency-key']).toBeUndefined();
    expect(await idempotency.get('undeclared')).toMatchObject({ state: 'uncertain' });
    await expect(executor.execute(order('undeclared'))).rejects.toBeInstanceOf(IdempotencyUnsettledError);
    expect(provider.effects).toBe(1);
  });

  it('still gives the action its key, which it may send where its provider takes one', async () => {
    const provider = await deduplicatingProvider();
    const { executor } = hostOf(shop(), provider.server);
    const outcome = await executor.execute(order('for-the-body'));
    expect(outcome).toMatchObject({ result: { sent: expect.stringMatching(/^pb_[0-9a-f]{40}$/), key: null } });
  });
});

describe('the idempotency key of a run', () => {
  it('is refused before anything is sent when no header can carry it', async () => {
    const provider = await deduplicatingProvider();
    const run = writeAction(
      shop(DEDUPLICATED),
      'orders.create',
      h.options({ input: { quantity: 1 }, connection: { baseUrl: provider.server.url }, idempotencyKey: 'a\r\nb' }),
    );
    await expect(run).rejects.toBeInstanceOf(InvalidInputError);
    await expect(run).rejects.toMatchObject({ issues: [{ path: 'idempotencyKey' }] });
    expect(provider.server.requests).toHaveLength(0);
  });

  it('is published in the catalogue entry where the provider honours one', () => {
    const operations = catalogueEntry(shop(DEDUPLICATED)).operations;
    expect(operations[0]).toMatchObject({ key: 'orders.create', idempotencyHeader: 'Idempotency-Key' });
    expect(catalogueEntry(shop()).operations[0]).not.toHaveProperty('idempotencyHeader');
  });
});

describe('the idempotencyHeader declaration', () => {
  const problems = (build: () => unknown) => {
    try {
      build();
    } catch (error) {
      if (error instanceof DefinitionError) return error.problems;
      throw error;
    }
    return [];
  };

  it('must be a header name, naming connector and action', () => {
    expect(problems(() => shop({ idempotencyHeader: 'Idempotency Key' }))).toContainEqual(
      expect.stringMatching(/^connector 'shop': action 'orders.create': idempotencyHeader must be an HTTP header name/),
    );
    expect(problems(() => shop({ idempotencyHeader: 'Authorization' }))).toContainEqual(
      expect.stringContaining("action 'orders.create': idempotencyHeader cannot be Authorization"),
    );
  });

  it("cannot be the credential's own header", () => {
    const keyed = defineConnector.bind(null, {
      ...shop(),
      auth: apiKeyHeader('X-Api-Key'),
      actions: [ordersCreate({ idempotencyHeader: 'x-api-key' })],
    });
    expect(problems(keyed)).toEqual([
      "connector 'shop': action 'orders.create': idempotencyHeader cannot be x-api-key: the credential is sent in that header",
    ]);
  });

  it('is refused on a source, naming connector and action', () => {
    const source = defineAction({
      key: 'orders.list',
      label: 'List orders',
      direction: 'source',
      entity: Order,
      input: z.object({}),
      ...({ idempotencyHeader: 'Idempotency-Key' } as object),
      async *read() {},
    });
    expect(
      problems(() =>
        defineConnector({
          key: 'shop',
          name: 'Shop',
          version: '1.0.0',
          vendor: null,
          category: 'developer',
          status: 'beta',
          summary: 'A source.',
          auth: bearerToken(),
          actions: [source],
        }),
      ),
    ).toContainEqual(
      "connector 'shop': action 'orders.list': idempotencyHeader is for a destination: a source is never run under an idempotency key",
    );
  });
});
