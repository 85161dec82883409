import {
  ApprovalRequiredError,
  CancelledError,
  ConnectionConfigError,
  createTransport,
  InvalidInputError,
  type Page,
  type Transport,
  type ApprovalDecision,
  ApprovalRefusedError,
} from '@plugboard/sdk';
import {
  type LocalRunner,
  createExecutor,
  type ExecuteRequest,
  type ExecutionEvent,
  type ExecutorOptions,
  IdempotencyKeyReusedError,
  IdempotencyUnsettledError,
  manualClock,
  memoryStore,
  type Stores,
  UnknownConnectorError,
} from '@plugboard/sdk/host';
import { items, reply, shop, shopAnswer } from '@plugboard/example-connector';
import { delay, type FaultServer, startFaultServer } from '@plugboard/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { fileStore, type IsolatedPlugin, type LoadResult, startPlugin } from '../src/index.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const ALL_ITEMS = items(8);

let server: FaultServer;
let transport: Transport;
/** How the next /orders, /quotes, /jobs requests are answered, in order; then 201. */
let script: Array<{ status: number; body?: unknown; delayMs?: number }> = [];
let credentialCalls = 0;

beforeAll(async () => {
  server = await startFaultServer((request) => {
    const next = request.path === '/items' ? undefined : script.shift();
    const answer =
      next && next.status >= 400
        ? reply(next.status, next.body ?? { error: 'failed', message: `status ${next.status}` })
        : shopAnswer(request, { items: ALL_ITEMS }, server.count);
    return next?.delayMs ? delay(next.delayMs, answer) : answer;
  });
  // Production runs go to the fault server on 127.0.0.1: the host lets loopback through.
  transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
  isolatedShop = await startPlugin(
    { dir: join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'tools', 'example-connector') },
    { allow: ['127.0.0.0/8'] },
  );
});
afterAll(async () => {
  await isolatedShop?.close();
  await transport.close();
  await server.close();
});
beforeEach(() => {
  server.clear();
  script = [];
  credentialCalls = 0;
});

const MODES = ['in this process', 'isolated'] as const;
let current: (typeof MODES)[number] = 'in this process';
let isolatedShop: IsolatedPlugin;

function executor(overrides: Partial<ExecutorOptions> = {}) {
  return createExecutor({
    ...(current === 'isolated'
      ? { plugins: [{ package: isolatedShop.package, runner: isolatedShop.runner }] }
      : { connectors: [shop] }),
    resolveConnection: (id) => ({ id, baseUrl: server.url, settings: { region: 'eu' } }),
    resolveCredential: () => {
      credentialCalls += 1;
      return 'secret-token-123';
    },
    clock: manualClock(NOW.getTime()),
    transport,
    retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 },
    log: () => undefined,
    ...overrides,
  });
}

const order = (extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  connectorKey: 'shop',
  action: 'orders.create',
  connectionId: 'conn_1',
  environment: 'production',
  input: { sku: 'SKU-1', quantity: 2 },
  ...extra,
});

async function approvalFor(
  request: ExecuteRequest,
  overrides: Partial<ApprovalDecision> = {},
): Promise<ApprovalDecision> {
  const { digest } = await executor().prepare(request);
  return {
    id: 'apr_1',
    digest,
    requestedBy: 'alice@example.com',
    decidedBy: 'bob@example.com',
    decision: 'approved',
    expiresAt: '2026-03-01T13:00:00.000Z',
    ...overrides,
  };
}

async function refusedWith(promise: Promise<unknown>): Promise<ApprovalRefusedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApprovalRefusedError);
  expect(error).toBeInstanceOf(ApprovalRequiredError);
  return error as ApprovalRefusedError;
}

/**
 * Every behaviour of the executor holds the same whether the connector runs in the host's
 * process or, isolated, in a process of its own.
 */
for (const mode of MODES) {
  describe(mode, () => {
    beforeAll(() => {
      current = mode;
    });

    describe('approvals', () => {
      test('an action needing approval in production is refused without one, with the digest to review; nothing is sent', async () => {
        const { digest, shortDigest, needsApproval } = await executor().prepare(order());
        expect(needsApproval).toBe(true);
        const error = await refusedWith(executor().execute(order()));
        expect(error.reason).toBe('missing');
        expect(error.code).toBe('approval_required');
        expect(error.digest).toBe(digest);
        expect(error.shortDigest).toBe(shortDigest);
        expect(error.message).toBe(
          `shop orders.create in production needs an approval: review and approve digest ${digest} (${shortDigest})`,
        );
        expect(server.requests).toHaveLength(0);
        expect(credentialCalls).toBe(0);
      });

      test('a valid approval by someone else, for this digest, not expired, runs', async () => {
        const request = order();
        const outcome = await executor().execute({ ...request, approval: await approvalFor(request) });
        expect(outcome).toMatchObject({
          direction: 'destination',
          replayed: false,
          result: { order_id: expect.any(String), amount: '20.00' },
        });
        expect(server.requests.map((seen) => `${seen.method} ${seen.path}`)).toEqual(['POST /orders']);
        expect(server.requests[0]!.headers.authorization).toBe('Bearer secret-token-123');
      });

      test('self-approval is refused (rule 9), whatever the case or spacing of the name', async () => {
        const request = order();
        const error = await refusedWith(
          executor().execute({
            ...request,
            approval: await approvalFor(request, { decidedBy: '  Alice@Example.com ' }),
          }),
        );
        expect(error.reason).toBe('self_approval');
        expect(error.approvalId).toBe('apr_1');
        expect(error.message).toMatch(
          /approval apr_1 does not allow this run: Alice@Example.com approved their own request; an approval must be decided by someone other than the requester/,
        );
        expect(server.requests).toHaveLength(0);
      });

      test('an approval of another digest is refused: a changed input, connection or environment', async () => {
        const approved = await approvalFor(order());
        const changedInput = await refusedWith(
          executor().execute(order({ input: { sku: 'SKU-1', quantity: 3 }, approval: approved })),
        );
        expect(changedInput.reason).toBe('digest_mismatch');
        expect(changedInput.digest).not.toBe(approved.digest);
        expect(changedInput.message).toContain(
          `it approves digest ${approved.digest}, which is not the digest of what would run`,
        );
        const otherConnection = await refusedWith(
          executor().execute(order({ connectionId: 'conn_2', approval: approved })),
        );
        expect(otherConnection.reason).toBe('digest_mismatch');
        expect(server.requests).toHaveLength(0);
        // Key order does not matter: the digest is of the canonical input.
        const reordered = await executor().execute(order({ input: { quantity: 2, sku: 'SKU-1' }, approval: approved }));
        expect(reordered.direction).toBe('destination');
      });

      test('an expired approval is refused', async () => {
        const request = order();
        const error = await refusedWith(
          executor().execute({
            ...request,
            approval: await approvalFor(request, { expiresAt: '2026-03-01T11:59:59.000Z' }),
          }),
        );
        expect(error.reason).toBe('expired');
        expect(error.message).toContain('it expired at 2026-03-01T11:59:59.000Z');
        // Expiring exactly now is expired too; null never expires.
        await expect(
          executor().execute({ ...request, approval: await approvalFor(request, { expiresAt: NOW.toISOString() }) }),
        ).rejects.toMatchObject({ reason: 'expired' });
        await expect(
          executor().execute({ ...request, approval: await approvalFor(request, { expiresAt: null }) }),
        ).resolves.toMatchObject({ replayed: false });
        expect(server.requests).toHaveLength(1);
      });

      test('an approval valid at the start is refused once the clock passes its expiresAt, with no real waiting', async () => {
        const clock = manualClock(NOW.getTime());
        const request = order();
        const approval = await approvalFor(request, { expiresAt: '2026-03-01T12:30:00.000Z' });
        await expect(executor({ clock }).execute({ ...request, approval })).resolves.toMatchObject({ replayed: false });
        await clock.advance(30 * 60 * 1000);
        const error = await refusedWith(executor({ clock }).execute({ ...request, approval }));
        expect(error.reason).toBe('expired');
        expect(error.message).toContain('it expired at 2026-03-01T12:30:00.000Z');
        expect(server.requests).toHaveLength(1);
      });

      test("an approval's keeper is told once the gate let the run through, before anything is sent; its refusal stops the run", async () => {
        const request = order();
        const seenAtUse: number[] = [];
        const approval = await approvalFor(request);
        const outcome = await executor().execute({
          ...request,
          approval: { ...approval, use: async () => void seenAtUse.push(server.requests.length) },
        });
        expect(outcome).toMatchObject({ replayed: false });
        expect(seenAtUse).toEqual([0]);
        expect(server.requests).toHaveLength(1);
        const used = new Error('approval apr_1 was used already');
        await expect(
          executor().execute({ ...request, approval: { ...approval, use: () => Promise.reject(used) } }),
        ).rejects.toBe(used);
        expect(server.requests).toHaveLength(1);
        // Refused by the gate: the keeper is never told, so the approval stays unused.
        let told = 0;
        await refusedWith(
          executor().execute({
            ...request,
            approval: { ...approval, decidedBy: 'alice@example.com', use: async () => void (told += 1) },
          }),
        );
        expect(told).toBe(0);
      });

      test('a rejected or incomplete approval is refused', async () => {
        const request = order();
        const rejected = await refusedWith(
          executor().execute({ ...request, approval: await approvalFor(request, { decision: 'rejected' }) }),
        );
        expect(rejected.reason).toBe('rejected');
        expect(rejected.message).toContain('it was rejected by bob@example.com');
        const incomplete = await refusedWith(
          executor().execute({
            ...request,
            approval: { ...(await approvalFor(request)), decidedBy: '', expiresAt: 'tomorrow' },
          }),
        );
        expect(incomplete.reason).toBe('incomplete');
        expect(incomplete.message).toContain('it lacks a valid decidedBy, expiresAt');
        expect(server.requests).toHaveLength(0);
      });

      test("'production' approval is not needed in sandbox; 'always' is needed everywhere", async () => {
        await expect(executor().execute(order({ environment: 'sandbox' }))).resolves.toMatchObject({ replayed: false });
        const refund: ExecuteRequest = {
          connectorKey: 'shop',
          action: 'refunds.create',
          connectionId: 'conn_1',
          environment: 'sandbox',
          input: { order_id: 'ord_1' },
        };
        expect((await refusedWith(executor().execute(refund))).reason).toBe('missing');
        await expect(executor().execute({ ...refund, approval: await approvalFor(refund) })).resolves.toMatchObject({
          replayed: false,
        });
        expect(server.requests.map((seen) => seen.path)).toEqual(['/orders', '/refunds']);
      });
    });

    describe('idempotency', () => {
      test('the same key returns the first result, replayed, with no second provider call', async () => {
        const run = executor();
        const first = await run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-1' }));
        const second = await run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-1' }));
        expect(first.replayed).toBe(false);
        expect(second).toEqual({ ...first, replayed: true });
        expect(server.requests.filter((seen) => seen.path === '/orders')).toHaveLength(1);
        // Another key runs again.
        const third = await run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-2' }));
        expect(third.replayed).toBe(false);
        expect(server.requests).toHaveLength(2);
      });

      test('concurrent runs with one key make one provider call', async () => {
        const run = executor();
        script = [{ status: 201, delayMs: 100 }];
        const outcomes = await Promise.all(
          [1, 2, 3].map(() => run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-concurrent' }))),
        );
        expect(outcomes.map((outcome) => outcome.replayed).sort()).toEqual([false, true, true]);
        expect(
          new Set(outcomes.map((outcome) => JSON.stringify(outcome.direction === 'destination' && outcome.result)))
            .size,
        ).toBe(1);
        expect(server.requests).toHaveLength(1);
      });

      test('a replay needs no approval (nothing runs), but must ask for the same thing', async () => {
        const run = executor();
        const request = order({ idempotencyKey: 'key-approved' });
        const first = await run.execute({ ...request, approval: await approvalFor(request) });
        const replay = await run.execute(request);
        expect(replay).toEqual({ ...first, replayed: true });
        const reused = await run
          .execute(order({ idempotencyKey: 'key-approved', input: { sku: 'SKU-9', quantity: 1 } }))
          .catch((error: unknown) => error);
        expect(reused).toBeInstanceOf(IdempotencyKeyReusedError);
        expect((reused as Error).message).toMatch(
          /idempotency key "key-approved" was first used for shop orders.create .* asks for something else/,
        );
        expect(server.requests).toHaveLength(1);
      });

      test('a key whose run the provider refused (4xx) may run again', async () => {
        const run = executor();
        script = [{ status: 422, body: { error: 'invalid', message: 'sku unknown' } }];
        await expect(
          run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-refused' })),
        ).rejects.toMatchObject({ status: 422 });
        await expect(
          run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-refused' })),
        ).resolves.toMatchObject({ replayed: false });
        expect(server.requests).toHaveLength(2);
      });

      test('a never-retried write that failed with an unknown outcome (5xx) is not run again under its key', async () => {
        const run = executor();
        script = [{ status: 503 }];
        await expect(
          run.execute(order({ environment: 'sandbox', idempotencyKey: 'key-unknown' })),
        ).rejects.toMatchObject({ status: 503 });
        const again = await run
          .execute(order({ environment: 'sandbox', idempotencyKey: 'key-unknown' }))
          .catch((error: unknown) => error);
        expect(again).toBeInstanceOf(IdempotencyUnsettledError);
        expect((again as Error).message).toMatch(/may have reached the provider .*check with the provider/);
        expect(server.requests).toHaveLength(1);
      });

      test('a safe write that failed may run again under its key', async () => {
        const run = executor();
        script = [{ status: 503 }, { status: 503 }, { status: 503 }];
        const quote = {
          connectorKey: 'shop',
          action: 'quotes.create',
          connectionId: 'conn_1',
          input: { sku: 'A' },
          idempotencyKey: 'key-safe',
        };
        await expect(run.execute(quote)).rejects.toMatchObject({ status: 503 });
        expect(server.requests).toHaveLength(3);
        await expect(run.execute(quote)).resolves.toMatchObject({ replayed: false });
        await expect(run.execute(quote)).resolves.toMatchObject({ replayed: true });
        expect(server.requests).toHaveLength(4);
      });
    });

    describe('sources and checkpoints', () => {
      const list = (extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
        connectorKey: 'shop',
        action: 'items.list',
        connectionId: 'conn_1',
        input: { limit: 3 },
        ...extra,
      });

      test('every page goes to the host; each checkpoint is committed after its page is acknowledged', async () => {
        const stores = memoryStore();
        const run = executor({ stores });
        const seen: string[] = [];
        const outcome = await run.execute(
          list({
            onPage: async (page: Page) => {
              seen.push(...page.records.map((record) => (record as { id: string }).id));
            },
          }),
        );
        expect(seen).toEqual(ALL_ITEMS.map((item) => item.id));
        expect(outcome).toMatchObject({
          direction: 'source',
          pages: 3,
          records: 8,
          checkpoint: { updated_after: ALL_ITEMS[7]!.updated_at },
        });
        expect(await stores.checkpoints.get(outcome.direction === 'source' ? outcome.stream : '')).toEqual({
          updated_after: ALL_ITEMS[7]!.updated_at,
        });
      });

      test('the checkpoint is committed only after onPage resolves: a host that fails on page 3 leaves it at page 2, and the next run re-reads page 3', async () => {
        const stores = memoryStore();
        const run = executor({ stores });
        const committedWhileAcknowledging: unknown[] = [];
        let stream = '';
        const failing = run.execute(
          list({
            onProgress: (event) => {
              if (event.type === 'started') stream = event.stream ?? '';
            },
            onPage: async (_page, { index }) => {
              committedWhileAcknowledging.push(await stores.checkpoints.get(stream));
              if (index === 2) throw new Error('the host could not store page 3');
            },
          }),
        );
        await expect(failing).rejects.toThrow('the host could not store page 3');
        // While a page is being acknowledged, the committed checkpoint is still the previous page's.
        expect(committedWhileAcknowledging).toEqual([
          undefined,
          { updated_after: ALL_ITEMS[2]!.updated_at },
          { updated_after: ALL_ITEMS[5]!.updated_at },
        ]);
        expect(await stores.checkpoints.get(stream)).toEqual({ updated_after: ALL_ITEMS[5]!.updated_at });

        const resumed: string[] = [];
        await run.execute(
          list({ onPage: (page) => void resumed.push(...page.records.map((record) => (record as { id: string }).id)) }),
        );
        expect(resumed).toEqual(['item_007', 'item_008']);
        expect(server.requests.at(-1)!.query.get('updated_after')).toBe(ALL_ITEMS[5]!.updated_at);
      });

      test('a source needs onPage', async () => {
        await expect(executor().execute(list())).rejects.toThrow(/items.list is a source: execute\(\) needs onPage/);
      });

      test('checkpoints are per stream: another input or connection starts from the beginning', async () => {
        const run = executor();
        await run.execute(list({ onPage: () => undefined }));
        const pages: number[] = [];
        await run.execute(list({ input: { limit: 4 }, onPage: (page) => void pages.push(page.records.length) }));
        expect(pages).toEqual([4, 4]);
      });
    });

    describe('progress and cancellation', () => {
      test('progress events: started, the action’s own progress, pages, finished', async () => {
        const events: ExecutionEvent[] = [];
        await executor().execute({
          connectorKey: 'shop',
          action: 'jobs.run',
          connectionId: 'conn_1',
          input: { steps: 2 },
          onProgress: (event) => events.push(event),
        });
        expect(events.map((event) => event.type)).toEqual(['started', 'progress', 'progress', 'finished']);
        expect(events[1]).toMatchObject({
          type: 'progress',
          connector: 'shop',
          action: 'jobs.run',
          label: 'Working',
          done: 1,
          total: 2,
          percent: 50,
        });
        expect(events[0]).toMatchObject({ type: 'started', environment: 'sandbox', time: NOW.toISOString() });

        const sourceEvents: ExecutionEvent[] = [];
        await executor().execute({
          connectorKey: 'shop',
          action: 'items.list',
          connectionId: 'conn_1',
          input: { limit: 5 },
          onPage: () => undefined,
          onProgress: (event) => sourceEvents.push(event),
        });
        expect(
          sourceEvents.map((event) =>
            event.type === 'page'
              ? `page ${event.index}: ${event.records}/${event.totalRecords} ${event.committed}`
              : event.type,
          ),
        ).toEqual(['started', 'page 0: 5/5 true', 'page 1: 3/8 true', 'finished']);
      });

      test('an AbortSignal cancels a run in flight', async () => {
        // The answer is held longer than the test may run: only the abort can end the run.
        script = [{ status: 201, delayMs: 10 * 60_000 }];
        const controller = new AbortController();
        const running = executor()
          .execute({
            connectorKey: 'shop',
            action: 'jobs.run',
            connectionId: 'conn_1',
            input: { steps: 0 },
            signal: controller.signal,
          })
          .catch((caught: unknown) => caught);
        while (server.count === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        controller.abort();
        expect(await running).toBeInstanceOf(CancelledError);
      });

      test('an aborted signal stops a run before anything is sent', async () => {
        const controller = new AbortController();
        controller.abort();
        await expect(
          executor().execute({ ...order({ environment: 'sandbox' }), signal: controller.signal }),
        ).rejects.toBeInstanceOf(CancelledError);
        expect(server.requests).toHaveLength(0);
      });

      test('cancelling a source between pages keeps the acknowledged page’s checkpoint and reads no further', async () => {
        // A provider of its own: an isolated plugin reads one page ahead, and that read may still be on its way
        // when the run is cancelled; it must land neither among the next test's requests nor in the checkpoint.
        let answeredSecond: () => void = () => undefined;
        const secondAnswered = new Promise<void>((resolve) => (answeredSecond = resolve));
        const own: FaultServer = await startFaultServer((request) => {
          if (own.count === 2) answeredSecond();
          return shopAnswer(request, { items: ALL_ITEMS }, own.count);
        });
        try {
          const stores = memoryStore();
          const controller = new AbortController();
          let stream = '';
          const running = executor({
            stores,
            resolveConnection: (id) => ({ id, baseUrl: own.url, settings: { region: 'eu' } }),
          }).execute({
            connectorKey: 'shop',
            action: 'items.list',
            connectionId: 'conn_1',
            input: { limit: 3 },
            signal: controller.signal,
            onProgress: (event) => {
              if (event.type === 'started') stream = event.stream ?? '';
            },
            onPage: async (_page, { index }) => {
              if (index !== 0) return;
              // The page read ahead is already answered when the cancel comes: it must not be acknowledged.
              if (current === 'isolated') {
                await secondAnswered;
                // Turns enough for that answer to reach the plugin and its page the host; correct either way.
                for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
              }
              controller.abort();
            },
          });
          await expect(running).rejects.toBeInstanceOf(CancelledError);
          expect(await stores.checkpoints.get(stream)).toEqual({ updated_after: ALL_ITEMS[2]!.updated_at });
          // An isolated plugin reads at most one page ahead of the host's acknowledgements.
          expect(own.requests.length).toBeLessThanOrEqual(current === 'isolated' ? 2 : 1);
        } finally {
          await own.close();
        }
      });
    });

    describe('connections and credentials', () => {
      test('rule 10: secret-like settings from the resolver are refused before the credential is read or anything is sent', async () => {
        const run = executor({
          resolveConnection: (id) => ({
            id,
            baseUrl: server.url,
            settings: { region: 'eu', nested: { apiKey: 'leak' } },
          }),
        });
        const error = await run.execute(order({ environment: 'sandbox' })).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConnectionConfigError);
        expect((error as Error).message).toMatch(
          /^connection conn_1: connection settings must not hold secrets.*settings.nested.apiKey/,
        );
        expect((error as Error).message).not.toContain('leak');
        expect(credentialCalls).toBe(0);
        expect(server.requests).toHaveLength(0);
      });

      test('a connection bound to one environment cannot run in another', async () => {
        const run = executor({ resolveConnection: (id) => ({ id, baseUrl: server.url, environment: 'sandbox' }) });
        await expect(run.execute(order())).rejects.toThrow(
          'connection conn_1 is a sandbox connection; it cannot run shop in production',
        );
      });

      test('a missing credential, a mismatched connection, an unknown connector or action, a bad input', async () => {
        await expect(
          executor({ resolveCredential: () => undefined }).execute(order({ environment: 'sandbox' })),
        ).rejects.toThrow("connection conn_1: the host's credential resolver returned none");
        await expect(executor({ resolveConnection: () => ({ id: 'other' }) }).execute(order())).rejects.toThrow(
          'returned connection "other"',
        );
        await expect(executor().execute(order({ connectorKey: 'nope' }))).rejects.toBeInstanceOf(UnknownConnectorError);
        await expect(executor().execute(order({ action: 'nope.create' }))).rejects.toMatchObject({
          code: 'unknown_action',
        });
        await expect(executor().execute(order({ input: { sku: '', quantity: 0 } }))).rejects.toBeInstanceOf(
          InvalidInputError,
        );
        expect(server.requests).toHaveLength(0);
      });

      test('connectors come from a map, a list or loaded plugins', () => {
        const fromMap = createExecutor({
          connectors: new Map([['shop', shop]]),
          resolveConnection: (id) => ({ id }),
          resolveCredential: () => 'x',
        });
        const loaded: LoadResult = {
          loaded: [
            {
              key: 'shop',
              package: 'p',
              version: '1.0.0',
              dir: '/',
              sdk: '^0.1.0',
              sharesHostSdk: true,
              connector: shop,
            },
          ],
          failed: [],
        };
        const fromPlugins = createExecutor({
          plugins: loaded,
          resolveConnection: (id) => ({ id }),
          resolveCredential: () => 'x',
        });
        expect([...fromMap.runners.keys()]).toEqual(['shop']);
        expect((fromPlugins.runners.get('shop') as LocalRunner).connector).toBe(shop);
        const other = { ...shop };
        expect(() =>
          createExecutor({
            connectors: [shop],
            plugins: [{ package: 'p', connector: other as typeof shop }],
            resolveConnection: (id) => ({ id }),
            resolveCredential: () => 'x',
          }),
        ).toThrow("two connectors have the key 'shop'");
      });
    });
  });
}

describe('file store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugboard-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('checkpoints and idempotency results persist across executor instances', async () => {
    const first = executor({ stores: fileStore(dir) });
    const result = await first.execute(order({ environment: 'sandbox', idempotencyKey: 'persisted' }));
    let stream = '';
    await first
      .execute({
        connectorKey: 'shop',
        action: 'items.list',
        connectionId: 'conn_1',
        input: { limit: 3 },
        onProgress: (event) => {
          if (event.type === 'started') stream = event.stream ?? '';
        },
        onPage: (_page, { index }) => {
          if (index === 1) throw new Error('stop after page 2 arrives');
        },
      })
      .catch(() => undefined);

    const second = executor({ stores: fileStore(dir) });
    expect(await second.execute(order({ environment: 'sandbox', idempotencyKey: 'persisted' }))).toEqual({
      ...result,
      replayed: true,
    });
    expect(await fileStore(dir).checkpoints.get(stream)).toEqual({ updated_after: ALL_ITEMS[2]!.updated_at });
    const resumed: string[] = [];
    await second.execute({
      connectorKey: 'shop',
      action: 'items.list',
      connectionId: 'conn_1',
      input: { limit: 3 },
      onPage: (page) => void resumed.push(...page.records.map((r) => (r as { id: string }).id)),
    });
    expect(resumed).toEqual(ALL_ITEMS.slice(3).map((item) => item.id));
    expect(server.requests.filter((seen) => seen.path === '/orders')).toHaveLength(1);
  });

  test('claims are atomic: of many concurrent claims of one key, one wins', async () => {
    const stores: Stores[] = Array.from({ length: 8 }, () => fileStore(dir));
    const running = {
      state: 'running' as const,
      fingerprint: 'f',
      digest: 'd',
      connector: 'shop',
      action: 'orders.create',
      startedAt: NOW.toISOString(),
    };
    const outcomes = await Promise.all(stores.map((store) => store.idempotency.claim('the-key', running)));
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome?.state === 'running')).toHaveLength(7);
    await stores[0]!.idempotency.release('the-key');
    expect(await stores[1]!.idempotency.get('the-key')).toBeUndefined();
  });

  test('keys of any length and character are stored, and a cleared checkpoint is gone', async () => {
    const store = fileStore(dir);
    const stream = `odd/../key with spaces ✓ ${'x'.repeat(400)}`;
    await store.checkpoints.commit(stream, { cursor: 1 });
    await store.checkpoints.commit(stream, { cursor: 2 });
    expect(await fileStore(dir).checkpoints.get(stream)).toEqual({ cursor: 2 });
    await store.checkpoints.clear(stream);
    expect(await store.checkpoints.get(stream)).toBeUndefined();
  });
});
