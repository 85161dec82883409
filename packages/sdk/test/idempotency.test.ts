import { describe, expect, it } from 'vitest';
import {
  createExecutor,
  DEFAULT_SETTLE_MIN_AGE_MS,
  type ExecuteRequest,
  type IdempotencyDecision,
  IdempotencySettleRefusedError,
  IdempotencyUnsettledError,
  manualClock,
  memoryStore,
  type RunningRecord,
  settleIdempotencyKey,
  type UncertainRecord,
} from '../src/host.js';
import { InvalidInputError, NotFoundError } from '../src/index.js';
import { example } from './support/connector.js';
import { json } from './support/server.js';
import { useHarness } from './support/harness.js';

const h = useHarness();
const STARTED = '2026-03-01T12:00:00.000Z';
const running: RunningRecord = {
  state: 'running',
  fingerprint: 'sha256:f',
  digest: 'sha256:d',
  connector: 'example',
  action: 'orders.create',
  startedAt: STARTED,
};
const uncertain: UncertainRecord = {
  ...running,
  state: 'uncertain',
  error: { code: 'provider_unavailable', message: 'POST /orders: 503', requestId: 'req_42' },
  finishedAt: '2026-03-01T12:00:05.000Z',
};
const at = (iso: string) => manualClock(Date.parse(iso));
const decision = (
  as: 'succeeded' | 'failed',
  before: RunningRecord | UncertainRecord = running,
): IdempotencyDecision => ({
  as,
  by: 'ops@example.com',
  reason: 'seen in the provider console',
  at: '2026-03-01T14:00:00.000Z',
  before,
});

describe('the memory store: inspect and decide', () => {
  it('inspects a key: its record and no decisions; nothing for a free key', async () => {
    const { idempotency } = memoryStore();
    expect(await idempotency.inspect('k')).toEqual({ key: 'k', decisions: [] });
    await idempotency.claim('k', running);
    expect(await idempotency.inspect('k')).toEqual({ key: 'k', record: running, decisions: [] });
  });

  it("decides succeeded: the record becomes succeeded with the result and the decision, which joins the key's decisions", async () => {
    const { idempotency } = memoryStore();
    await idempotency.claim('k', running);
    const outcome = await idempotency.decide('k', decision('succeeded'), { order_id: 'ord_7', amount: '10.00' });
    const { state: _state, ...first } = running;
    const succeeded = {
      ...first,
      state: 'succeeded',
      result: { order_id: 'ord_7', amount: '10.00' },
      finishedAt: '2026-03-01T14:00:00.000Z',
      decision: decision('succeeded'),
    };
    expect(outcome).toEqual({ applied: true, record: succeeded });
    expect(await idempotency.inspect('k')).toEqual({ key: 'k', record: succeeded, decisions: [decision('succeeded')] });
  });

  it('decides failed: the key is released and may be claimed again; the decision stays', async () => {
    const { idempotency } = memoryStore();
    await idempotency.settle('k', uncertain);
    expect(await idempotency.decide('k', decision('failed', uncertain))).toEqual({ applied: true });
    expect(await idempotency.get('k')).toBeUndefined();
    expect(await idempotency.claim('k', { ...running, startedAt: '2026-03-01T15:00:00.000Z' })).toBeUndefined();
    expect(await idempotency.inspect('k')).toMatchObject({
      record: { state: 'running', startedAt: '2026-03-01T15:00:00.000Z' },
      decisions: [decision('failed', uncertain)],
    });
  });

  it('applies nothing when the record is no longer the one decided on', async () => {
    const { idempotency } = memoryStore();
    expect(await idempotency.decide('k', decision('failed'))).toEqual({ applied: false });
    await idempotency.claim('k', running);
    await idempotency.settle('k', {
      ...running,
      state: 'succeeded',
      result: { order_id: 'ord_1' },
      finishedAt: '2026-03-01T12:00:01.000Z',
    });
    const outcome = await idempotency.decide('k', decision('failed'));
    expect(outcome).toMatchObject({ applied: false, record: { state: 'succeeded', result: { order_id: 'ord_1' } } });
    expect(await idempotency.inspect('k')).toMatchObject({ record: { state: 'succeeded' }, decisions: [] });
  });

  it('compares records whatever their key order', async () => {
    const { idempotency } = memoryStore();
    await idempotency.claim('k', running);
    const reordered = Object.fromEntries(Object.entries(running).reverse()) as unknown as RunningRecord;
    expect(await idempotency.decide('k', decision('failed', reordered))).toEqual({ applied: true });
  });
});

describe('settleIdempotencyKey', () => {
  it('settles an uncertain key at once, recording who, when, why and what it was before', async () => {
    const { idempotency } = memoryStore();
    await idempotency.settle('k', uncertain);
    const report = await settleIdempotencyKey(idempotency, 'k', {
      as: 'succeeded',
      by: ' ops@example.com ',
      reason: 'the order is in the console',
      result: { order_id: 'ord_9', amount: '10.00' },
      clock: at('2026-03-01T12:01:00.000Z'),
    });
    const expected = {
      as: 'succeeded',
      by: 'ops@example.com',
      reason: 'the order is in the console',
      at: '2026-03-01T12:01:00.000Z',
      before: uncertain,
    };
    expect(report).toEqual({
      key: 'k',
      record: expect.objectContaining({
        state: 'succeeded',
        result: { order_id: 'ord_9', amount: '10.00' },
        finishedAt: '2026-03-01T12:01:00.000Z',
        decision: expected,
      }),
      decisions: [expected],
    });
    expect(report.record).not.toHaveProperty('error');
  });

  it('refuses a running key younger than the safe age unless forced, and settles it after that age', async () => {
    const { idempotency } = memoryStore();
    await idempotency.claim('k', running);
    const early = await settleIdempotencyKey(idempotency, 'k', {
      as: 'failed',
      by: 'ops',
      reason: 'not in the console',
      clock: at('2026-03-01T12:10:00.000Z'),
    }).catch((error: unknown) => error);
    expect(early).toBeInstanceOf(IdempotencySettleRefusedError);
    expect(early).toMatchObject({
      refusal: 'recent',
      state: 'idempotency_in_progress',
      code: 'conflict',
      record: running,
    });
    expect((early as Error).message).toContain('10 min ago, less than 1 h');
    expect(await idempotency.get('k')).toEqual(running);
    // A shorter safe age, or force.
    await expect(
      settleIdempotencyKey(idempotency, 'k', {
        as: 'failed',
        by: 'ops',
        reason: 'r',
        minAgeMs: 60_000,
        clock: at('2026-03-01T12:00:30.000Z'),
      }),
    ).rejects.toMatchObject({ refusal: 'recent' });
    expect(
      await settleIdempotencyKey(idempotency, 'k', {
        as: 'failed',
        by: 'ops',
        reason: 'r',
        force: true,
        clock: at('2026-03-01T12:00:30.000Z'),
      }),
    ).toEqual({ key: 'k', decisions: [expect.objectContaining({ as: 'failed' })] });
    await idempotency.claim('k', running);
    const late = new Date(Date.parse(STARTED) + DEFAULT_SETTLE_MIN_AGE_MS).toISOString();
    expect(
      await settleIdempotencyKey(idempotency, 'k', { as: 'failed', by: 'ops', reason: 'r', clock: at(late) }),
    ).toMatchObject({ decisions: [{ as: 'failed' }, { as: 'failed', at: late }] });
  });

  it('refuses a succeeded key and an unknown one, and a decision without who or why', async () => {
    const { idempotency } = memoryStore();
    await expect(
      settleIdempotencyKey(idempotency, 'nope', { as: 'failed', by: 'ops', reason: 'r' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      settleIdempotencyKey(idempotency, 'nope', { as: 'failed', by: 'ops', reason: 'r' }),
    ).rejects.toMatchObject({ code: 'idempotency_key_unknown' });
    await idempotency.settle('k', { ...running, state: 'succeeded', result: null, finishedAt: STARTED });
    await expect(
      settleIdempotencyKey(idempotency, 'k', { as: 'failed', by: 'ops', reason: 'r', force: true }),
    ).rejects.toMatchObject({ refusal: 'succeeded', state: 'idempotency_settled' });
    await idempotency.settle('u', uncertain);
    for (const options of [
      { as: 'failed', by: ' ', reason: 'r' },
      { as: 'failed', by: 'ops', reason: '' },
      { as: 'maybe', by: 'ops', reason: 'r' },
      { as: 'failed', by: 'ops', reason: 'r', result: { order_id: 'x' } },
      { as: 'failed', by: 'ops', reason: 'r', minAgeMs: -1 },
    ] as const) {
      await expect(settleIdempotencyKey(idempotency, 'u', options as never)).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect(await idempotency.inspect('u')).toEqual({ key: 'u', record: uncertain, decisions: [] });
  });
});

describe('the executor after a decision', () => {
  const order = (key: string): ExecuteRequest => ({
    connectorKey: 'example',
    action: 'orders.create',
    connectionId: 'conn_1',
    input: { customer: { email: 'a@example.com', name: 'A' }, quantity: 1 },
    idempotencyKey: key,
  });

  it('runs a key settled failed again, and replays a key settled succeeded', async () => {
    let orders = 0;
    const server = await h.start((request, response) => {
      if (request.path !== '/orders') return json(response, 404, {});
      orders += 1;
      json(
        response,
        orders === 1 ? 503 : 201,
        orders === 1 ? { message: 'down' } : { order_id: `ord_${orders}`, amount: '10.00' },
      );
    });
    const stores = memoryStore();
    const executor = createExecutor({
      connectors: [example],
      resolveConnection: (id) => ({ id, baseUrl: server.url }),
      resolveCredential: () => 'test-credential-1234',
      stores,
      transport: h.transport,
    });
    // A 503 on a never-retried write: the outcome is unknown and the key refuses to run again.
    await expect(executor.execute(order('k1'))).rejects.toMatchObject({ status: 503 });
    const refused = await executor.execute(order('k1')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IdempotencyUnsettledError);
    expect((refused as Error).message).toContain('settle the key as succeeded or failed');
    await settleIdempotencyKey(stores.idempotency, 'k1', {
      as: 'failed',
      by: 'ops',
      reason: 'no order in the console',
    });
    expect(await executor.execute(order('k1'))).toMatchObject({ replayed: false, result: { order_id: 'ord_2' } });
    expect(await executor.execute(order('k1'))).toMatchObject({ replayed: true, result: { order_id: 'ord_2' } });
    expect(orders).toBe(2);

    // A key whose process died mid-run: settled succeeded with what the provider shows.
    const { fingerprint, digest } = (await stores.idempotency.get('k1'))!;
    await stores.idempotency.claim('k2', { ...running, connector: 'example', fingerprint, digest });
    await settleIdempotencyKey(stores.idempotency, 'k2', {
      as: 'succeeded',
      by: 'ops',
      reason: 'ord_77 in the console',
      result: { order_id: 'ord_77', amount: '10.00' },
      force: true,
    });
    expect(await executor.execute(order('k2'))).toEqual({
      direction: 'destination',
      replayed: true,
      result: { order_id: 'ord_77', amount: '10.00' },
      digest,
    });
    expect(orders).toBe(2);
  });
});
