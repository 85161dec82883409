import { describe, expect, it } from 'vitest';
import {
  checkHostConnection,
  errorCodes,
  checkpointFromStore,
  type ExecuteRequest,
  type ExecutorErrorCode,
  type ExecutorSetup,
  prepareExecution,
  runDestination,
  runSource,
  setUpExecutor,
  UnknownConnectorError,
} from '../src/host.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

/**
 * The executor's entry points, called on a setup of one's own as a worker would: the same
 * preparation, claim, replay and commit as `createExecutor(...).execute`, which composes them.
 */

const h = useHarness();

function setup(url: string): ExecutorSetup {
  return setUpExecutor({
    connectors: [example],
    resolveConnection: (id) => ({ id, baseUrl: url }),
    resolveCredential: () => 'worker-token-5d1e7a',
    transport: h.transport,
    log: () => undefined,
  });
}

const order = (idempotencyKey: string): ExecuteRequest => ({
  connectorKey: 'example',
  action: 'orders.create',
  connectionId: 'conn_1',
  input: { customer: { email: 'ada@example.com', name: 'Ada' }, quantity: 2 },
  idempotencyKey,
});

const items: ExecuteRequest = {
  connectorKey: 'example',
  action: 'items.list',
  connectionId: 'conn_1',
  stream: 'items',
};

describe('the executor entry points', () => {
  it('runs a destination under its key once: a repeat on the same setup replays the first result', async () => {
    const server = await h.start((req, res) => json(res, 201, { order_id: 'ord_1', amount: '20.00' }));
    const worker = setup(server.url);
    const first = await runDestination(worker, order('k-1'), await prepareExecution(worker, order('k-1')));
    const again = await runDestination(worker, order('k-1'), await prepareExecution(worker, order('k-1')));
    expect(first).toMatchObject({ direction: 'destination', replayed: false, result: { order_id: 'ord_1' } });
    expect(again).toMatchObject({ direction: 'destination', replayed: true, result: { order_id: 'ord_1' } });
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    expect(await worker.stores.idempotency.get('k-1')).toMatchObject({ state: 'succeeded' });
  });

  it("runs a source and commits each acknowledged page's checkpoint to the setup's store", async () => {
    const server = await h.start((req, res) =>
      json(res, 200, { data: [{ id: 'i1', name: 'One', updated_at: '2026-01-01T00:00:01.000Z' }] }),
    );
    const worker = setup(server.url);
    const acknowledged: number[] = [];
    const request = {
      ...items,
      onPage: (_page: unknown, { index }: { index: number }) => void acknowledged.push(index),
    };
    const outcome = await runSource(worker, request, await prepareExecution(worker, request));
    expect(outcome).toMatchObject({ direction: 'source', pages: 1, records: 1, stream: 'items' });
    expect(acknowledged).toEqual([0]);
    const stored = await worker.stores.checkpoints.get('items');
    expect(stored && checkpointFromStore(stored).checkpoint).toEqual({ updated_after: '2026-01-01T00:00:01.000Z' });
  });

  it('refuses a prepared run of the other direction before anything is sent', async () => {
    const server = await h.start((req, res) => json(res, 500, {}));
    const worker = setup(server.url);
    const source = { ...items, onPage: () => undefined };
    await expect(runDestination(worker, source, await prepareExecution(worker, source))).rejects.toThrow(
      'example items.list is a source, not a destination',
    );
    await expect(runSource(worker, order('k-2'), await prepareExecution(worker, order('k-2')))).rejects.toThrow(
      'example orders.create is not a source',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('fails with a code of ExecutorErrorCode: an unknown connector is unknown_connector', async () => {
    const server = await h.start((req, res) => json(res, 500, {}));
    const worker = setup(server.url);
    const failure = await checkHostConnection(worker, { connectorKey: 'nope', connectionId: 'conn_1' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UnknownConnectorError);
    const code: ExecutorErrorCode = UnknownConnectorError.code;
    expect(errorCodes(failure as UnknownConnectorError)).toEqual([code]);
    expect((failure as UnknownConnectorError).message).toBe("no connector 'nope'; the executor has example");
    expect(server.requests).toHaveLength(0);
  });
});
