import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENTS_FILE, type EventLog, eventLog } from '../src/event-log.js';
import type { AcceptedDelivery, Claim } from '../src/event-store.js';
import { stateFolder, useCleanup } from './support.js';

/**
 * The state folder's event log, on a real file: two claims of one event at once give one
 * winner and one line; a new claim is answered from the index with its write to wait for; pruning rewrites the log keeping pending runs and recent events, and
 * ended runs stay ended across the rewrite and a restart.
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
    await written(log.claim(recentEnded, 'evt_recent_ended', true));
    await written(log.claim(otherTrigger, 'evt_old', false));
    await log.runEnded(oldEnded.deliveryId);
    await log.runEnded(recentEnded.deliveryId);
    expect(await log.prune('trg_orders', CUTOFF)).toBe(2);
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
});
