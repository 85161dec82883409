import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type Transport } from '@plugboard/sdk';
import { fileStore } from '@plugboard/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLog } from '../src/event-log.js';
import { executorRunStarter, RECEIPTS_FILE, type RunEnd, type StartRun } from '../src/index.js';
import { runTracker } from '../src/runs.js';
import { ORDERS, RUN, shop, startProvider, TOKEN } from './shop.js';
import { deliver, receipts, startReceiver, stateFolder, testClock, trigger, useCleanup } from './support.js';

/**
 * An accepted delivery of a trigger with `run` starts its action through the SDK's executor,
 * with the delivery's records as the input, against a small provider started here; its execution
 * id is the run's. A repeated event starts nothing; a run a restart interrupted starts again.
 */

useCleanup();

const transports: Transport[] = [];
let provider: Awaited<ReturnType<typeof startProvider>> | undefined;
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  await provider?.close();
  provider = undefined;
});

/** The executor's starter over the test's connector, and every run it started, to wait for. */
function starter(stateDir: string): { startRun: StartRun; runs: Promise<RunEnd>[]; executionIds: string[] } {
  const transport = createTransport();
  transports.push(transport);
  const start = executorRunStarter({
    connectors: [shop],
    resolveCredential: () => TOKEN,
    stores: fileStore(`${stateDir}/runs`),
    transport,
    log: () => undefined,
  });
  const runs: Promise<RunEnd>[] = [];
  const executionIds: string[] = [];
  return {
    runs,
    executionIds,
    startRun: (run) => {
      executionIds.push(run.executionId);
      const started = start(run);
      runs.push(started);
      return started;
    },
  };
}

describe('a delivery turned into a run', () => {
  it("starts the trigger's action through the executor with the records as input; executionId is the run's", async () => {
    provider = await startProvider();
    const clock = testClock();
    const stateDir = await stateFolder();
    const { startRun, runs } = starter(stateDir);
    const config = { triggers: [trigger(RUN(provider.url))] };
    const { urls, logs } = await startReceiver({ stateDir, clock, config, startRun });
    const answer = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_paid_1');
    expect(answer.body).toMatchObject({
      accepted: true,
      duplicate: false,
      executionId: expect.stringMatching(/^exe_/),
    });
    expect(await Promise.all(runs)).toEqual([{ records: 1 }]);
    expect(provider.imports).toEqual([
      { authorization: `Bearer ${TOKEN}`, key: expect.stringMatching(/^pb_/), records: ORDERS.records },
    ]);
    expect((await receipts(stateDir))[0]).toMatchObject({
      status: 'accepted',
      recordCount: 2,
      executionId: answer.body.executionId,
    });
    expect(logs.map((entry) => entry.message)).toContain(
      `run ${answer.body.executionId} of trigger trg_orders succeeded: 1 record`,
    );
    const again = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_paid_1');
    expect(again.body).toMatchObject({ duplicate: true, executionId: answer.body.executionId });
    expect(runs).toHaveLength(1);
  });

  it('starts a run whose action refuses the records, and says why it failed', async () => {
    provider = await startProvider();
    const clock = testClock();
    const stateDir = await stateFolder();
    const { startRun, runs } = starter(stateDir);
    const { urls, logs } = await startReceiver({
      stateDir,
      clock,
      config: { triggers: [trigger(RUN(provider.url))] },
      startRun,
    });
    await deliver(urls.trg_orders!, clock, { records: [{ id: 'o1' }] });
    await Promise.allSettled(runs);
    expect(provider.imports).toEqual([]);
    expect(logs.find((entry) => entry.level === 'error')).toMatchObject({
      code: 'invalid_input',
      triggerId: 'trg_orders',
    });
  });

  it("refuses, typed and before any request, a run whose action is a source: a delivery's records are written", async () => {
    provider = await startProvider();
    const clock = testClock();
    const stateDir = await stateFolder();
    const { startRun, runs } = starter(stateDir);
    const source = { run: { ...RUN(provider.url).run, action: 'orders.list' } };
    const { urls, logs } = await startReceiver({ stateDir, clock, config: { triggers: [trigger(source)] }, startRun });
    await deliver(urls.trg_orders!, clock, ORDERS);
    await Promise.allSettled(runs);
    expect(provider.imports).toEqual([]);
    expect(provider.requests).toBe(0);
    expect(logs.find((entry) => entry.level === 'error')).toMatchObject({
      code: 'invalid_input',
      triggerId: 'trg_orders',
      message: expect.stringContaining('orders.list is a source'),
    });
  });

  it('starts again, under the same execution id, a run a restart interrupted', async () => {
    provider = await startProvider();
    const clock = testClock();
    const stateDir = await stateFolder();
    const config = { triggers: [trigger(RUN(provider.url))] };
    // A run that never ends on its own: the receiver is closed under it.
    const hanging: StartRun = (run) =>
      new Promise((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true }));
    const first = await startReceiver({ stateDir, clock, config, startRun: hanging });
    const answer = await deliver(first.urls.trg_orders!, clock, ORDERS, 'evt_paid_2');
    await first.receiver.close({ abortRuns: true });
    expect(provider.imports).toEqual([]);
    expect(first.logs.map((entry) => entry.message)).toContainEqual(
      expect.stringContaining('stopped with the receiver'),
    );
    const { startRun, runs, executionIds } = starter(stateDir);
    const second = await startReceiver({ stateDir, clock, config, startRun });
    expect(await Promise.all(runs)).toEqual([{ records: 1 }]);
    expect(executionIds).toEqual([answer.body.executionId]);
    expect(provider.imports.map((entry) => entry.records)).toEqual([ORDERS.records]);
    await second.receiver.close();
    // Ended: a third start finds nothing pending.
    const third = starter(stateDir);
    await startReceiver({ stateDir, clock, config, startRun: third.startRun });
    expect(third.runs).toHaveLength(0);
  });

  it('starts the run of a kept delivery even when its receipt cannot be written; the repeat is a duplicate', async () => {
    provider = await startProvider();
    const clock = testClock();
    const stateDir = await stateFolder();
    // The receipts' file is a folder: appending to it fails.
    await mkdir(join(stateDir, RECEIPTS_FILE), { recursive: true });
    const { startRun, runs } = starter(stateDir);
    const { urls } = await startReceiver({
      stateDir,
      clock,
      config: { triggers: [trigger(RUN(provider.url))] },
      startRun,
    });
    const failed = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_receiptless');
    expect(failed).toMatchObject({ status: 500, body: { accepted: false, code: 'internal_error' } });
    expect(await Promise.all(runs)).toEqual([{ records: 1 }]);
    expect(provider.imports.map((entry) => entry.records)).toEqual([ORDERS.records]);
    // Once receipts can be written again, the sender's retry is answered as a duplicate of the kept one.
    await rm(join(stateDir, RECEIPTS_FILE), { recursive: true });
    const retried = await deliver(urls.trg_orders!, clock, ORDERS, 'evt_receiptless');
    expect(retried).toMatchObject({
      status: 200,
      body: { accepted: true, duplicate: true, executionId: expect.stringMatching(/^exe_/) },
    });
    expect(runs).toHaveLength(1);
    expect(await receipts(stateDir)).toEqual([
      expect.objectContaining({ status: 'duplicate', executionId: retried.body.executionId }),
    ]);
  });

  it('only keeps the deliveries of a trigger without run', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { startRun, runs } = starter(stateDir);
    const { urls } = await startReceiver({ stateDir, clock, startRun });
    expect((await deliver(urls.trg_orders!, clock, ORDERS)).body).toMatchObject({ accepted: true, executionId: null });
    expect(runs).toHaveLength(0);
  });
});

describe('runs resumed as the receiver listens', () => {
  it('never starts twice the run of a delivery accepted after listen and still running when the pending runs are resumed', async () => {
    const stateDir = await stateFolder();
    const events = eventLog(stateDir);
    const delivery = {
      triggerId: 'trg_orders',
      eventId: 'evt_gap_1',
      deliveryId: 'dlv_gap_1',
      executionId: 'exe_gap_1',
      receivedAt: new Date(0).toISOString(),
      records: [{ id: 'ord_1' }],
    };
    const claim = await events.claim(delivery, 'evt_gap_1', true);
    if (claim.claimed) await claim.durable;
    const started: string[] = [];
    let finish = () => {};
    const startRun: StartRun = (run) => {
      started.push(run.executionId);
      return new Promise<RunEnd>((resolve) => {
        finish = () => resolve({ records: 1 });
      });
    };
    const settings = trigger({ run: { connector: 'shop', action: 'orders.import', connection: 'shop' } });
    const tracker = runTracker(startRun, events, testClock(), () => undefined);
    // Accepted in the gap between listen and the resume: its run started, its pending mark still there.
    tracker.start(delivery, settings as never);
    expect(await tracker.resume(new Map([['trg_orders', settings as never]]))).toBe(0);
    expect(started).toEqual(['exe_gap_1']);
    finish();
    await tracker.drain();
    expect(await events.pending()).toEqual([]);
    await events.close();
  });
});
