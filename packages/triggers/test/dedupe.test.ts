import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  deliver,
  ENV,
  post,
  PREVIOUS_SECRET,
  receipts,
  SECRET,
  secondsOf,
  signed,
  startReceiver,
  stateFolder,
  testClock,
  trigger,
  useCleanup,
} from './support.js';

/**
 * A repeated event id is answered `duplicate: true` with the first delivery's ids, durably: the
 * record survives a restart on the same state folder; accepted inputs are kept
 * `inputRetentionDays`, receipts `receiptRetentionDays`; a rotated secret's predecessor verifies
 * until `previousSecretValidUntil`.
 */

useCleanup();

const ORDER = { type: 'order.created', records: [{ id: 'ord_1' }] };

describe('dedupe by event id', () => {
  it('answers a repeated event id 200 duplicate with the first deliveryId, also after close and a new receiver on the same folder', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const first = await startReceiver({ stateDir, clock });
    const accepted = await deliver(first.urls.trg_orders!, clock, ORDER, 'evt_same');
    const again = await deliver(first.urls.trg_orders!, clock, ORDER, 'evt_same');
    await first.receiver.close();
    await clock.advance(60_000);
    const second = await startReceiver({ stateDir, clock });
    const afterRestart = await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_same');
    const other = await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_other');
    expect(accepted.body).toMatchObject({ accepted: true, duplicate: false });
    for (const answer of [again, afterRestart])
      expect(answer).toMatchObject({
        status: 200,
        body: {
          accepted: true,
          duplicate: true,
          code: 'duplicate',
          deliveryId: accepted.body.deliveryId,
          executionId: null,
        },
      });
    expect(other.body).toMatchObject({ duplicate: false });
    expect(other.body.deliveryId).not.toBe(accepted.body.deliveryId);
    const kept = await receipts(stateDir);
    expect(kept.map((receipt) => [receipt.status, receipt.reasonCode, receipt.eventId])).toEqual([
      ['accepted', null, 'evt_same'],
      ['duplicate', 'duplicate', 'evt_same'],
      ['duplicate', 'duplicate', 'evt_same'],
      ['accepted', null, 'evt_other'],
    ]);
    // Each request has a receipt of its own.
    expect(new Set(kept.map((receipt) => receipt.deliveryId)).size).toBe(4);
  });

  it('still knows every event after a crash tore the last line of its log, and keeps what it accepts next', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const first = await startReceiver({ stateDir, clock });
    const accepted = await deliver(first.urls.trg_orders!, clock, ORDER, 'evt_before');
    await first.receiver.close();
    // A crash in the middle of writing a claim: half a line, no newline.
    await appendFile(join(stateDir, 'events.jsonl'), '{"key":"4f2a","pending":false,"claim":{"triggerId":"trg_or');
    const second = await startReceiver({ stateDir, clock });
    const afterCrash = [
      await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_before'),
      await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_after'),
    ];
    await second.receiver.close();
    const third = await startReceiver({ stateDir, clock });
    const afterRestart = await deliver(third.urls.trg_orders!, clock, ORDER, 'evt_after');
    expect(afterCrash.map((answer) => answer.body.duplicate)).toEqual([true, false]);
    expect(afterCrash[0]!.body.deliveryId).toBe(accepted.body.deliveryId);
    expect(afterRestart.body).toMatchObject({ duplicate: true, deliveryId: afterCrash[1]!.body.deliveryId });
  });

  it('accepts exactly one of deliveries of one event arriving at once', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => deliver(urls.trg_orders!, clock, ORDER, 'evt_race')),
    );
    expect(answers.filter((answer) => answer.body.duplicate === false)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.deliveryId)).size).toBe(1);
  });

  it('keeps the same event id apart for two triggers', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const other = trigger({
      triggerId: 'trg_refunds',
      url: 'https://hooks.example.com/api/connect/triggers/pub_refunds',
    });
    const { urls } = await startReceiver({ stateDir, clock, config: { triggers: [trigger(), other] } });
    expect((await deliver(urls.trg_orders!, clock, ORDER, 'evt_1')).body.duplicate).toBe(false);
    expect((await deliver(urls.trg_refunds!, clock, ORDER, 'evt_1')).body.duplicate).toBe(false);
    expect((await receipts(stateDir, 'trg_refunds')).map((receipt) => receipt.triggerId)).toEqual(['trg_refunds']);
  });
});

describe('inputRetentionDays', () => {
  it('keeps an accepted event for its days, then forgets it when the receiver listens again', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const config = { triggers: [trigger({ inputRetentionDays: 2 })] };
    const first = await startReceiver({ stateDir, clock, config });
    await deliver(first.urls.trg_orders!, clock, ORDER, 'evt_old');
    await first.receiver.close();
    await clock.advance(2 * 86_400_000 - 1000);
    const second = await startReceiver({ stateDir, clock, config });
    expect((await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_old')).body.duplicate).toBe(true);
    await deliver(second.urls.trg_orders!, clock, ORDER, 'evt_new');
    await second.receiver.close();
    await clock.advance(2000);
    const third = await startReceiver({ stateDir, clock, config });
    // The first is past its two days and forgotten; the second is a second old.
    const again = [await deliver(third.urls.trg_orders!, clock, ORDER, 'evt_new')];
    again.push(await deliver(third.urls.trg_orders!, clock, ORDER, 'evt_old'));
    expect(again.map((answer) => answer.body.duplicate)).toEqual([true, false]);
  });
});

describe('receiptRetentionDays', () => {
  it('keeps receipts for their days and at most a day more, removed a day at a time when the receiver listens', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const serve = () => startReceiver({ stateDir, clock, receiptRetentionDays: 1 });
    const first = await serve();
    const ids: unknown[] = [(await deliver(first.urls.trg_orders!, clock, ORDER, 'e1')).body.deliveryId];
    await clock.advance(25 * 3_600_000);
    ids.push((await deliver(first.urls.trg_orders!, clock, ORDER, 'e2')).body.deliveryId);
    await clock.advance(25 * 3_600_000);
    ids.push((await deliver(first.urls.trg_orders!, clock, ORDER, 'e3')).body.deliveryId);
    // The third is the first accepted an hour after the pruning at listen: it prunes again (closing waits for it).
    await first.receiver.close();
    const listed = async () => (await receipts(stateDir)).map((receipt) => receipt.deliveryId);
    // The first day's file ended when the second began, more than a day before; the second's ended with the third.
    expect(await listed()).toEqual(ids.slice(1));
    await clock.advance(25 * 3_600_000);
    await serve();
    expect(await listed()).toEqual(ids.slice(2));
  });

  it('is refused naming the field unless a whole number of days from 1 to 3650', async () => {
    const stateDir = await stateFolder();
    for (const days of [0, 1.5, 3651])
      await expect(startReceiver({ stateDir, clock: testClock(), receiptRetentionDays: days })).rejects.toThrow(
        /receiptRetentionDays: must be a whole number from 1 to 3650/,
      );
  });
});

describe('a rotated secret', () => {
  it('verifies with the predecessor until previousSecretValidUntil, then only with the new secret', async () => {
    const clock = testClock();
    const config = {
      triggers: [
        trigger({ previousSecretEnv: 'TRIGGER_PREVIOUS_SECRET', previousSecretValidUntil: '2026-01-01T01:00:00Z' }),
      ],
    };
    const { urls } = await startReceiver({ stateDir: await stateFolder(), clock, config, env: ENV });
    const text = JSON.stringify(ORDER);
    const send = (secret: string, eventId: string) =>
      post(urls.trg_orders!, text, signed(text, { secret, eventId, timestamp: secondsOf(clock) }));
    const before = [await send(PREVIOUS_SECRET, 'p1'), await send(SECRET, 'c1')];
    await clock.advance(3_600_000 + 1000);
    const after = [await send(PREVIOUS_SECRET, 'p2'), await send(SECRET, 'c2')];
    expect([...before, ...after].map((answer) => answer.body.code ?? 'accepted')).toEqual([
      'accepted',
      'accepted',
      'signature_mismatch',
      'accepted',
    ]);
  });

  it("says at listen, once, that the predecessor's window has ended", async () => {
    const clock = testClock();
    const rotated = (previousSecretValidUntil: string) => ({
      triggers: [trigger({ previousSecretEnv: 'TRIGGER_PREVIOUS_SECRET', previousSecretValidUntil })],
    });
    const open = await startReceiver({ stateDir: await stateFolder(), clock, config: rotated('2026-01-01T01:00:00Z') });
    expect(open.logs.filter((entry) => entry.level === 'warn')).toEqual([]);
    const ended = await startReceiver({
      stateDir: await stateFolder(),
      clock,
      config: rotated('2025-12-31T00:00:00Z'),
    });
    expect(ended.logs.filter((entry) => entry.level === 'warn')).toEqual([
      expect.objectContaining({
        message:
          'trigger trg_orders: the previous secret (TRIGGER_PREVIOUS_SECRET) was valid until 2025-12-31T00:00:00Z; deliveries signed with it are refused',
        triggerId: 'trg_orders',
      }),
    ]);
  });
});
