import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENTS_FILE, type EventLog, eventLog } from '../src/event-log.js';
import type { AcceptedDelivery, Claim } from '../src/event-store.js';
import { stateFolder, useCleanup } from './support.js';

/**
 * The state folder's event log, on a real file: two claims of one event at once give one
 * winner and one line; a new claim is answered from the index with its write to wait for; pruning
 * forgets expired claims at once and rewrites the log, keeping pending runs and recent events, once
 * they are half of it; ended runs stay ended across the rewrite and a restart.
 */

useCleanup();

const OLD = '2026-01-01T00:00:00.000Z';
const RECENT = '2026-01-03T00:00:00.000Z';
const CUTOFF = Date.parse('2026-01-02T00:00:00.000Z');

let made = 0;
function accepted(fields: Partial<AcceptedDelivery> = {}): AcceptedDelivery {
  made += 1;
  return {
    triggerId: 'trg_orders',
    eventId: `evt_${made}`,
    deliveryId: `dlv_${made}`,
    executionId: `exe_${made}`,
    receivedAt: RECENT,
    records: [{ id: `ord_${made}` }],
    ...fields,
  };
}

const opened: EventLog[] = [];
afterEach(async () => {
  for (const log of opened.splice(0)) await log.close();
});
function open(stateDir: string): EventLog {
  const log = eventLog(stateDir);
  opened.push(log);
  return log;
}

/** A claim once written: its outcome without its `durable`. */
async function written(claiming: Promise<Claim>) {
  const claim = await claiming;
  if (!claim.claimed) return claim;
  await claim.durable;
  return { claimed: true };
}

const claimLines = async (stateDir: string) =>
  (await readFile(join(stateDir, EVENTS_FILE), 'utf8')).split('\n').filter((line) => line.includes('"claim"'));

describe('the event log', () => {
  it('accepts exactly one of two claims of one event made at once; the other is given the first', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    const one = accepted();
    const other = accepted();
    const [first, second, third] = await Promise.all([
      written(log.claim(one, 'evt_same', true)),
      written(log.claim(other, 'evt_same', true)),
      written(log.claim(accepted(), 'evt_else', false)),
    ]);
    expect(first).toEqual({ claimed: true });
    expect(second).toEqual({ claimed: false, first: one });
    expect(third).toEqual({ claimed: true });
    expect(await log.pending()).toEqual([one]);
    await log.close();
    expect(await claimLines(stateDir)).toHaveLength(2);
    expect(await open(stateDir).claim(accepted(), 'evt_same', false)).toEqual({ claimed: false, first: one });
  });

  it('answers a new claim at once from its index, with its write to wait for before the claim holds', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    const one = accepted();
    const claim = await log.claim(one, 'evt_new', false);
    expect(claim).toEqual({ claimed: true, durable: expect.any(Promise) });
    await (claim as { durable: Promise<void> }).durable;
    expect(await claimLines(stateDir)).toHaveLength(1);
    expect(await log.claim(accepted(), 'evt_new', false)).toEqual({ claimed: false, first: one });
  });

  it('prunes by rewriting the log: pending runs and recent events stay, ended runs stay ended', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    const oldPending = accepted({ receivedAt: OLD });
    const oldEnded = accepted({ receivedAt: OLD });
    const recentEnded = accepted();
    const otherTrigger = accepted({ triggerId: 'trg_refunds', receivedAt: OLD });
    await written(log.claim(oldPending, 'evt_old_pending', true));
    await written(log.claim(oldEnded, 'evt_old_ended', true));
    await written(log.claim(accepted({ receivedAt: OLD }), 'evt_old', false));
    await written(log.claim(accepted({ receivedAt: OLD }), 'evt_old_2', false));
    await written(log.claim(accepted({ receivedAt: OLD }), 'evt_old_3', false));
    await written(log.claim(recentEnded, 'evt_recent_ended', true));
    await written(log.claim(otherTrigger, 'evt_old', false));
    await log.runEnded(oldEnded.deliveryId);
    await log.runEnded(recentEnded.deliveryId);
    // Four of seven claims expire: more than half the log, so it is rewritten.
    expect(await log.prune('trg_orders', CUTOFF)).toBe(4);
    // Read back where the rewrite moved it.
    expect(await log.claim(accepted(), 'evt_recent_ended', false)).toEqual({ claimed: false, first: recentEnded });
    expect(await log.pending()).toEqual([oldPending]);
    await log.close();
    expect(await claimLines(stateDir)).toHaveLength(3);
    expect(await readdir(stateDir)).toEqual([EVENTS_FILE]);
    const restarted = open(stateDir);
    expect(await restarted.pending()).toEqual([oldPending]);
    const again = async (eventId: string, triggerId = 'trg_orders') =>
      (await written(restarted.claim(accepted({ triggerId }), eventId, false))).claimed;
    expect(await again('evt_old_pending')).toBe(false);
    expect(await again('evt_recent_ended')).toBe(false);
    expect(await again('evt_old', 'trg_refunds')).toBe(false);
    // Forgotten: a new claim of a pruned event is accepted (once).
    expect([await again('evt_old'), await again('evt_old'), await again('evt_old_ended')]).toEqual([true, false, true]);
  });

  it('keeps the lines of expired claims until they are half the log; a restart forgets them still, and a new claim of one holds', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    for (const eventId of ['evt_a', 'evt_b', 'evt_c']) await written(log.claim(accepted(), eventId, false));
    await written(log.claim(accepted({ receivedAt: OLD }), 'evt_old', false));
    expect(await log.prune('trg_orders', CUTOFF)).toBe(1);
    expect(await claimLines(stateDir)).toHaveLength(4);
    const again = accepted();
    expect(await written(log.claim(again, 'evt_old', false))).toEqual({ claimed: true });
    await log.close();
    // The pruned line comes first in the log; the claim made after it holds.
    const restarted = open(stateDir);
    expect(await restarted.claim(accepted(), 'evt_old', false)).toEqual({ claimed: false, first: again });
    for (const eventId of ['evt_d', 'evt_e', 'evt_f', 'evt_g'])
      await written(restarted.claim(accepted({ receivedAt: OLD }), eventId, false));
    // Four expire, and the line the later claim replaced is none of the index's: five lines kept no more against four kept, rewritten.
    expect(await restarted.prune('trg_orders', CUTOFF)).toBe(4);
    expect(await claimLines(stateDir)).toHaveLength(4);
    expect(await restarted.claim(accepted(), 'evt_old', false)).toEqual({ claimed: false, first: again });
  });
});
