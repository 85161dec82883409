import { join } from 'node:path';
import { createTransport, type Transport } from '@plugboard/sdk';
import { createExecutor, type ExecuteRequest, memoryStore } from '@plugboard/sdk/host';
import { answer, type FaultServer, reset, type SeenRequest, startFaultServer } from '@plugboard/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type IsolatedPlugin, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/** A connector in a plugin's own process whose orders go to a provider that may deduplicate them. */
const entry = (key: string, declaration: string) => `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Order = z.object({ id: z.string(), sent: z.string().nullable() }).meta({ id: 'PluginOrder' });
export default defineConnector({
  key: '${key}', name: 'Orders', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Orders from a plugin.', auth: bearerToken(),
  actions: [
    defineAction({ key: 'orders.create', label: 'Place an order', direction: 'destination', entity: Order,
      effect: { writes: true, idempotent: false, destructive: false }, ${declaration}
      input: z.object({ quantity: z.number() }),
      async write(ctx, input) {
        const order = await ctx.http.post('/orders', input);
        return { id: order.id, sent: ctx.idempotencyKey ?? null };
      } }),
  ],
});
`;

let folder: PluginFolder;
let declared: IsolatedPlugin;
let undeclared: IsolatedPlugin;
let provider: FaultServer;
let transport: Transport;
/** Orders the provider placed: one per key it had not seen, one per request without a key. */
let effects = 0;
let losing = 0;

beforeAll(async () => {
  const seen = new Map<string, string>();
  provider = await startFaultServer((request: SeenRequest) => {
    const key = request.headers['idempotency-key'];
    let id = typeof key === 'string' ? seen.get(key) : undefined;
    if (id === undefined) {
      effects += 1;
      id = `ord_${effects}`;
      if (typeof key === 'string') seen.set(key, id);
    }
    // The order is placed; its answer is lost on the way back.
    if (losing > 0) {
      losing -= 1;
      return reset();
    }
    return answer({ status: 201, body: { id } });
  });
  folder = await npmFolder([
    { name: 'connector-keyed', entry: entry('keyed', "idempotencyHeader: 'Idempotency-Key',") },
    { name: 'connector-unkeyed', entry: entry('unkeyed', '') },
  ]);
  declared = await startPlugin({ dir: join(folder.modules, 'connector-keyed') }, { allow: ['127.0.0.0/8'] });
  undeclared = await startPlugin({ dir: join(folder.modules, 'connector-unkeyed') }, { allow: ['127.0.0.0/8'] });
  transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
});
afterAll(async () => {
  await transport?.close();
  await declared?.close();
  await undeclared?.close();
  await folder?.cleanup();
  await provider?.close();
});
beforeEach(() => {
  provider.clear();
  effects = 0;
  losing = 0;
});

function host() {
  const stores = memoryStore();
  const executor = createExecutor({
    plugins: [declared, undeclared].map((plugin) => ({ package: plugin.package, runner: plugin.runner })),
    resolveConnection: (id) => ({ id, baseUrl: provider.url }),
    resolveCredential: () => 'plugin-order-token-5b1d',
    stores,
    transport,
    log: () => undefined,
    // No backoff: the retries go at once, whatever the clock.
    retry: { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 },
  });
  return { executor, idempotency: stores.idempotency };
}

const order = (connectorKey: string, idempotencyKey: string): ExecuteRequest => ({
  connectorKey,
  action: 'orders.create',
  connectionId: 'c1',
  input: { quantity: 1 },
  idempotencyKey,
});

const keysSent = () => provider.requests.map((request) => request.headers['idempotency-key']);

describe("the idempotency key in a plugin's own process", () => {
  test('reaches the action and the provider; a lost answer is sent again with it, and the provider acts once', async () => {
    const { executor, idempotency } = host();
    losing = 1;
    const outcome = await executor.execute(order('keyed', 'plugin-key-1'));
    const [first, again] = keysSent();
    expect(first).toMatch(/^pb_[0-9a-f]{40}$/);
    expect(again).toBe(first);
    expect(outcome).toMatchObject({ replayed: false, result: { id: 'ord_1', sent: first } });
    expect(effects).toBe(1);
    expect(await idempotency.get('plugin-key-1')).toMatchObject({ state: 'succeeded' });
  });

  test('leaves the key free when the retries ran out, so a repeat sends it again', async () => {
    const { executor, idempotency } = host();
    losing = 3;
    await expect(executor.execute(order('keyed', 'plugin-key-2'))).rejects.toMatchObject({ code: 'network_error' });
    expect(provider.count).toBe(3);
    expect(await idempotency.get('plugin-key-2')).toBeUndefined();
    expect(await executor.execute(order('keyed', 'plugin-key-2'))).toMatchObject({ result: { id: 'ord_1' } });
    expect(new Set(keysSent()).size).toBe(1);
    expect(effects).toBe(1);
  });

  test('without the declaration sends no key and leaves a lost write uncertain, as before', async () => {
    const { executor, idempotency } = host();
    losing = 1;
    await expect(executor.execute(order('unkeyed', 'plugin-key-3'))).rejects.toMatchObject({ code: 'network_error' });
    expect(provider.count).toBe(1);
    expect(keysSent()).toEqual([undefined]);
    expect(await idempotency.get('plugin-key-3')).toMatchObject({ state: 'uncertain' });
  });
});
