import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type IdempotencyDecision,
  manualClock,
  type RunningRecord,
  settleIdempotencyKey,
  type Stores,
  type UncertainRecord,
} from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { fileStore } from '../src/index.js';

const running: RunningRecord = {
  state: 'running',
  fingerprint: 'sha256:f',
  digest: 'sha256:d',
  connector: 'shop',
  action: 'orders.create',
  startedAt: '2026-03-01T12:00:00.000Z',
};
const uncertain: UncertainRecord = {
  ...running,
  state: 'uncertain',
  error: { code: 'timeout', message: 'POST /orders: no answer in 30 s' },
  finishedAt: '2026-03-01T12:00:30.000Z',
};
const decision = (
  as: 'succeeded' | 'failed',
  before: RunningRecord | UncertainRecord = running,
  by = 'ops@example.com',
): IdempotencyDecision => ({
  as,
  by,
  reason: 'looked the order up in the provider console',
  at: '2026-03-01T14:00:00.000Z',
  before,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-decide-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('file store: inspect and decide', () => {
  test('inspects a key across store instances: its record and the decisions made on it', async () => {
    expect(await fileStore(dir).idempotency.inspect('k')).toEqual({ key: 'k', decisions: [] });
    await fileStore(dir).idempotency.claim('k', running);
    expect(await fileStore(dir).idempotency.inspect('k')).toEqual({ key: 'k', record: running, decisions: [] });
  });

  test("decides succeeded: the record holds the result and the decision, in another process's view too", async () => {
    const store = fileStore(dir);
    await store.idempotency.claim('k', running);
    const outcome = await store.idempotency.decide('k', decision('succeeded'), { order_id: 'ord_7', amount: '10.00' });
    expect(outcome).toMatchObject({
      applied: true,
      record: {
        state: 'succeeded',
        result: { order_id: 'ord_7', amount: '10.00' },
        finishedAt: decision('succeeded').at,
      },
    });
    const report = await fileStore(dir).idempotency.inspect('k');
    expect(report.record).toEqual(outcome.record);
    expect(report.record).toMatchObject({
      decision: decision('succeeded'),
      startedAt: running.startedAt,
      fingerprint: running.fingerprint,
    });
    expect(report.decisions).toEqual([decision('succeeded')]);
    expect(await fileStore(dir).idempotency.get('k')).toEqual(outcome.record);
  });

  test('decides failed: the key file goes, a new claim wins, and the decision is kept in decisions/', async () => {
    const store = fileStore(dir);
    await store.idempotency.settle('k', uncertain);
    expect(await store.idempotency.decide('k', decision('failed', uncertain))).toEqual({ applied: true });
    expect(await readdir(join(dir, 'idempotency'))).toEqual([]);
    const again = { ...running, startedAt: '2026-03-01T15:00:00.000Z' };
    const claims = await Promise.all(Array.from({ length: 6 }, () => fileStore(dir).idempotency.claim('k', again)));
    expect(claims.filter((claim) => claim === undefined)).toHaveLength(1);
    expect(await fileStore(dir).idempotency.inspect('k')).toEqual({
      key: 'k',
      record: again,
      decisions: [decision('failed', uncertain)],
    });
    const files = await readdir(join(dir, 'decisions'));
    expect(files).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dir, 'decisions', files[0]!), 'utf8'))).toMatchObject({
      key: 'k',
      value: [decision('failed', uncertain)],
    });
  });

  test('applies nothing when the record changed since it was looked at', async () => {
    const store = fileStore(dir);
    expect(await store.idempotency.decide('k', decision('failed'))).toEqual({ applied: false });
    await store.idempotency.claim('k', running);
    const finished = {
      ...running,
      state: 'succeeded' as const,
      result: { order_id: 'ord_1' },
      finishedAt: '2026-03-01T12:00:01.000Z',
    };
    await store.idempotency.settle('k', finished);
    expect(await store.idempotency.decide('k', decision('failed'))).toEqual({ applied: false, record: finished });
    expect(await store.idempotency.inspect('k')).toEqual({ key: 'k', record: finished, decisions: [] });
  });

  test('of two operators deciding on one record at once, one decision applies and the other finds it changed', async () => {
    await fileStore(dir).idempotency.settle('k', uncertain);
    const outcomes = await Promise.allSettled([
      fileStore(dir).idempotency.decide('k', decision('succeeded', uncertain, 'first'), { order_id: 'ord_1' }),
      fileStore(dir).idempotency.decide('k', decision('failed', uncertain, 'second')),
    ]);
    const applied = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.applied);
    expect(applied).toHaveLength(1);
    expect((await fileStore(dir).idempotency.inspect('k')).decisions).toHaveLength(1);
  });

  test('a lock left by a process that died while deciding is broken once stale; a fresh one refuses', async () => {
    const store = fileStore(dir);
    await store.idempotency.claim('k', running);
    // The key's file name is its hash: the lock sits next to its decisions.
    const lock = join(dir, 'decisions', `${createHash('sha256').update('k').digest('hex').slice(0, 40)}.json.lock`);
    await mkdir(join(dir, 'decisions'));
    await writeFile(lock, '');
    await expect(store.idempotency.decide('k', decision('failed'))).rejects.toMatchObject({
      code: 'conflict',
      state: 'idempotency_deciding',
    });
    expect(await store.idempotency.get('k')).toEqual(running);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await store.idempotency.decide('k', decision('failed'))).toEqual({ applied: true });
    expect((await readdir(join(dir, 'decisions'))).filter((file) => file.endsWith('.lock'))).toEqual([]);
  });

  test('settleIdempotencyKey over the file store: a running key settled failed runs again, the decisions stay', async () => {
    const stores: Stores = fileStore(dir);
    await stores.idempotency.claim('k', running);
    const clock = manualClock(Date.parse('2026-03-01T12:30:00.000Z'));
    await expect(
      settleIdempotencyKey(stores.idempotency, 'k', { as: 'failed', by: 'ops', reason: 'r', clock }),
    ).rejects.toMatchObject({ refusal: 'recent' });
    const report = await settleIdempotencyKey(fileStore(dir).idempotency, 'k', {
      as: 'failed',
      by: 'ops',
      reason: 'no order in the console',
      minAgeMs: 20 * 60 * 1000,
      clock,
    });
    expect(report).toEqual({
      key: 'k',
      decisions: [
        { as: 'failed', by: 'ops', reason: 'no order in the console', at: '2026-03-01T12:30:00.000Z', before: running },
      ],
    });
    expect(await stores.idempotency.claim('k', running)).toBeUndefined();
  });
});

describe('file store: the clock', () => {
  test("stamps every file's savedAt with the clock it was given", async () => {
    const clock = manualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    const stores = fileStore(dir, { clock });
    await stores.checkpoints.commit('stream', { page: 1 });
    await clock.advance(60_000);
    await stores.idempotency.claim('k', running);
    const savedAt = async (folder: string) => {
      const [file] = await readdir(join(dir, folder));
      return JSON.parse(await readFile(join(dir, folder, file!), 'utf8')).savedAt;
    };
    expect(await savedAt('checkpoints')).toBe('2026-03-01T12:00:00.000Z');
    expect(await savedAt('idempotency')).toBe('2026-03-01T12:01:00.000Z');
  });
});
