import type { Stores } from '@plugboard/sdk/host';
import { describe, expect, test } from 'vitest';
import { decision, running, succeeded, uncertain } from './records.js';

/**
 * What every `Stores` must do, whatever keeps it: run by each store's own test file with a
 * factory. `open()` gives empty stores; `reopen()` another view of the same state, as a second
 * process (or machine) would have.
 */
export interface StoresSubject {
  stores: Stores;
  reopen(): Stores;
}

export function describeStoresContract(name: string, open: () => Promise<StoresSubject>): void {
  describe(`${name}: checkpoints`, () => {
    test('a stream never committed has no checkpoint', async () => {
      const { stores } = await open();
      expect(await stores.checkpoints.get('orders')).toBeUndefined();
    });

    test('a committed checkpoint comes back as JSON, in another view too', async () => {
      const { stores, reopen } = await open();
      const checkpoint = { cursor: 'c_9', seen: [1, 2.5, null], nested: { deep: true, text: 'naïve ☕' } };
      await stores.checkpoints.commit('orders', checkpoint);
      expect(await stores.checkpoints.get('orders')).toEqual(checkpoint);
      expect(await reopen().checkpoints.get('orders')).toEqual(checkpoint);
    });

    test('a later commit replaces the checkpoint; streams are apart; undefined is kept as null', async () => {
      const { stores } = await open();
      await stores.checkpoints.commit('orders', { cursor: 1 });
      await stores.checkpoints.commit('orders', { cursor: 2 });
      await stores.checkpoints.commit('invoices', undefined);
      expect(await stores.checkpoints.get('orders')).toEqual({ cursor: 2 });
      expect(await stores.checkpoints.get('invoices')).toBeNull();
    });

    test('clear forgets one stream; clearing an unknown stream is fine', async () => {
      const { stores, reopen } = await open();
      await stores.checkpoints.commit('orders', { cursor: 1 });
      await stores.checkpoints.commit('invoices', { cursor: 7 });
      await stores.checkpoints.clear('orders');
      await stores.checkpoints.clear('never-seen');
      expect(await reopen().checkpoints.get('orders')).toBeUndefined();
      expect(await reopen().checkpoints.get('invoices')).toEqual({ cursor: 7 });
    });

    test('a stream name may hold any character and be long', async () => {
      const { stores } = await open();
      const names = ['a/b\\c:d', 'é 漢字 🙂', `'; DROP TABLE x; --`, 'x'.repeat(500)];
      for (const [index, stream] of names.entries()) await stores.checkpoints.commit(stream, { index });
      for (const [index, stream] of names.entries()) expect(await stores.checkpoints.get(stream)).toEqual({ index });
    });
  });

  describeClaims(name, open);
  describeDecisions(name, open);
}

function describeClaims(name: string, open: () => Promise<StoresSubject>): void {
  describe(`${name}: idempotency claims`, () => {
    test('a free key is claimed: the claim wins and the record is kept, in another view too', async () => {
      const { stores, reopen } = await open();
      expect(await stores.idempotency.get('k')).toBeUndefined();
      expect(await stores.idempotency.claim('k', running)).toBeUndefined();
      expect(await reopen().idempotency.get('k')).toEqual(running);
    });

    test('a second claim loses and gets the first record back', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.claim('k', running);
      expect(await reopen().idempotency.claim('k', { ...running, fingerprint: 'sha256:other' })).toEqual(running);
      expect(await stores.idempotency.get('k')).toEqual(running);
    });

    test('of 20 claims of one key at once, exactly one wins; the others get its record', async () => {
      const { stores, reopen } = await open();
      const views = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? stores : reopen()));
      const outcomes = await Promise.all(
        views.map((view, index) => view.idempotency.claim('race', { ...running, fingerprint: `sha256:${index}` })),
      );
      const winners = outcomes.flatMap((outcome, index) => (outcome === undefined ? [index] : []));
      expect(winners).toHaveLength(1);
      const kept = { ...running, fingerprint: `sha256:${winners[0]}` };
      expect(outcomes.filter((outcome) => outcome !== undefined)).toEqual(Array(19).fill(kept));
      expect(await stores.idempotency.get('race')).toEqual(kept);
    });

    test('settle replaces the record with the outcome, which a later claim gets back', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.claim('k', running);
      await stores.idempotency.settle('k', succeeded);
      expect(await reopen().idempotency.get('k')).toEqual(succeeded);
      expect(await reopen().idempotency.claim('k', running)).toEqual(succeeded);
      await stores.idempotency.settle('k', uncertain);
      expect(await stores.idempotency.get('k')).toEqual(uncertain);
    });

    test('release frees a key: it reads as free and the next claim wins', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.claim('k', running);
      await stores.idempotency.release('k');
      await stores.idempotency.release('never-claimed');
      expect(await reopen().idempotency.get('k')).toBeUndefined();
      expect(await reopen().idempotency.claim('k', running)).toBeUndefined();
    });

    test('keys are apart, and may hold any character', async () => {
      const { stores } = await open();
      for (const key of ['a', 'a/b', 'é 漢字 🙂', 'k'.repeat(500)])
        expect(await stores.idempotency.claim(key, { ...running, fingerprint: key.slice(0, 9) })).toBeUndefined();
      expect(await stores.idempotency.get('a/b')).toEqual({ ...running, fingerprint: 'a/b' });
    });
  });
}

function describeDecisions(name: string, open: () => Promise<StoresSubject>): void {
  describe(`${name}: idempotency decisions`, () => {
    test('inspect of a free key: no record, no decisions; of a claimed key: its record', async () => {
      const { stores } = await open();
      expect(await stores.idempotency.inspect('k')).toEqual({ key: 'k', decisions: [] });
      await stores.idempotency.claim('k', running);
      expect(await stores.idempotency.inspect('k')).toEqual({ key: 'k', record: running, decisions: [] });
    });

    test('decide succeeded on a running key: the record holds the result and the decision', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.claim('k', running);
      const outcome = await stores.idempotency.decide('k', decision('succeeded'), { order_id: 'ord_7' });
      const after = {
        ...running,
        state: 'succeeded',
        result: { order_id: 'ord_7' },
        finishedAt: decision('succeeded').at,
        decision: decision('succeeded'),
      };
      expect(outcome).toEqual({ applied: true, record: after });
      expect(await reopen().idempotency.inspect('k')).toEqual({
        key: 'k',
        record: after,
        decisions: [decision('succeeded')],
      });
    });

    test('decide succeeded without a result keeps null', async () => {
      const { stores } = await open();
      await stores.idempotency.settle('k', uncertain);
      const outcome = await stores.idempotency.decide('k', decision('succeeded', uncertain));
      expect(outcome).toMatchObject({ applied: true, record: { state: 'succeeded', result: null } });
      expect(outcome.record).not.toHaveProperty('error');
    });

    test('decide failed releases the key; its decisions are kept when it runs again', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.settle('k', uncertain);
      expect(await stores.idempotency.decide('k', decision('failed', uncertain))).toEqual({ applied: true });
      expect(await reopen().idempotency.inspect('k')).toEqual({ key: 'k', decisions: [decision('failed', uncertain)] });
      expect(await stores.idempotency.claim('k', running)).toBeUndefined();
      const later = decision('failed', running, '2026-03-02T09:00:00.000Z');
      expect(await stores.idempotency.decide('k', later)).toEqual({ applied: true });
      expect((await reopen().idempotency.inspect('k')).decisions).toEqual([decision('failed', uncertain), later]);
    });

    test('a decision on a stale record is not applied: the record found comes back, nothing changes', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.claim('k', running);
      await stores.idempotency.settle('k', uncertain);
      expect(await stores.idempotency.decide('k', decision('failed', running))).toEqual({
        applied: false,
        record: uncertain,
      });
      expect(await reopen().idempotency.inspect('k')).toEqual({ key: 'k', record: uncertain, decisions: [] });
      expect(await stores.idempotency.decide('free', decision('failed', running))).toEqual({ applied: false });
    });

    test('the record decided on matches whatever the order of its fields', async () => {
      const { stores } = await open();
      await stores.idempotency.settle('k', uncertain);
      const reordered = Object.fromEntries(Object.entries(uncertain).reverse()) as typeof uncertain;
      expect(await stores.idempotency.decide('k', decision('failed', reordered))).toEqual({ applied: true });
    });

    test('of two decisions on one record at once, one applies', async () => {
      const { stores, reopen } = await open();
      await stores.idempotency.settle('k', uncertain);
      const outcomes = await Promise.allSettled([
        stores.idempotency.decide('k', decision('failed', uncertain)),
        reopen().idempotency.decide('k', decision('succeeded', uncertain), { order_id: 'ord_2' }),
      ]);
      const applied = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.applied);
      expect(applied).toHaveLength(1);
      expect((await stores.idempotency.inspect('k')).decisions).toHaveLength(1);
    });
  });
}
