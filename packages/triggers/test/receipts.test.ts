import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listDeliveries, RECEIPTS_FILE, type ReceiptLog, receiptLog, type TriggerDelivery } from '../src/receipts.js';
import { stateFolder, useCleanup } from './support.js';

/**
 * The state folder's receipts, on a real file: a last line a crash tore is cut off when the file
 * is opened, so the next receipt is a line of its own; a receipt that stands on a claim is cut
 * when the claim's write fails, and the others of its batch stay; kept for days, the file is set
 * aside on a new day's first receipt and removed whole once the next one began before the cut-off.
 */

useCleanup();

let made = 0;
function receipt(fields: Partial<TriggerDelivery> = {}): TriggerDelivery {
  made += 1;
  return {
    deliveryId: `dlv_${made}`,
    triggerId: 'trg_orders',
    receivedAt: '2026-01-01T00:00:00.000Z',
    status: 'accepted',
    reasonCode: null,
    httpStatus: 200,
    eventId: `evt_${made}`,
    eventType: null,
    payloadSha256: null,
    sizeBytes: 2,
    recordCount: 1,
    executionId: null,
    ...fields,
  };
}

const opened: ReceiptLog[] = [];
afterEach(async () => {
  for (const log of opened.splice(0)) await log.close();
});
function open(stateDir: string, options: { daily?: boolean } = {}): ReceiptLog {
  const log = receiptLog(stateDir, options);
  opened.push(log);
  return log;
}

async function listed(stateDir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const kept of listDeliveries(stateDir)) found.push(kept.deliveryId);
  return found;
}

describe('the receipts', () => {
  it('cut a last line a crash tore when opened: the next receipt is kept', async () => {
    const stateDir = await stateFolder();
    const before = receipt();
    await open(stateDir).append(before);
    // A crash in the middle of an append: half a line, no newline.
    await appendFile(join(stateDir, RECEIPTS_FILE), '{"deliveryId":"dlv_torn","triggerId":"trg_or');
    const after = receipt();
    await open(stateDir).append(after);
    expect(await listed(stateDir)).toEqual([before.deliveryId, after.deliveryId]);
    expect(await readFile(join(stateDir, RECEIPTS_FILE), 'utf8')).not.toContain('dlv_torn');
  });

  it('cut a receipt whose claim failed to be written; the rest of its batch stays', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    const refused = receipt({ status: 'refused', reasonCode: 'malformed', httpStatus: 400 });
    const lost = receipt();
    const kept = receipt();
    const failed = new Error('the claim was not written');
    const outcomes = await Promise.allSettled([
      log.append(refused),
      log.append(lost, Promise.reject(failed)),
      log.append(kept, Promise.resolve()),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(failed);
    const next = receipt();
    await log.append(next);
    expect(await listed(stateDir)).toEqual([refused.deliveryId, kept.deliveryId, next.deliveryId]);
  });

  it('kept for days: set aside on the first receipt of a new UTC day, removed whole once the next file began before the cut-off', async () => {
    const stateDir = await stateFolder();
    const at = (time: string) => receipt({ receivedAt: `2026-01-${time}Z` });
    const log = open(stateDir, { daily: true });
    const day1 = [at('01T00:00:00.000'), at('01T12:00:00.000')];
    const day2 = at('02T01:00:00.000');
    for (const each of [...day1, day2]) await log.append(each);
    expect((await readdir(stateDir)).sort()).toEqual(['receipts-20260101T000000000Z.jsonl', RECEIPTS_FILE]);
    const day4 = at('04T00:00:00.000');
    await log.append(day4);
    const ids = (receipts: TriggerDelivery[]) => receipts.map((each) => each.deliveryId);
    expect(await listed(stateDir)).toEqual(ids([...day1, day2, day4]));
    // The first file ends where the second began (day 2, 01:00): not yet before the cut-off.
    await log.prune(Date.parse('2026-01-02T00:30:00.000Z'));
    expect(await listed(stateDir)).toEqual(ids([...day1, day2, day4]));
    await log.prune(Date.parse('2026-01-02T02:00:00.000Z'));
    expect(await listed(stateDir)).toEqual(ids([day2, day4]));
    await log.close();
    // Opened again, the current file began with its first receipt (day 4): day 4 goes on in it, day 5 sets it aside.
    const again = open(stateDir, { daily: true });
    const later = [at('04T23:00:00.000'), at('05T00:00:00.000')];
    for (const each of later) await again.append(each);
    expect((await readdir(stateDir)).sort()).toEqual([
      'receipts-20260102T010000000Z.jsonl',
      'receipts-20260104T000000000Z.jsonl',
      RECEIPTS_FILE,
    ]);
    expect(await listed(stateDir)).toEqual(ids([day2, day4, ...later]));
  });

  it('kept until removed: one file, whatever the days', async () => {
    const stateDir = await stateFolder();
    const log = open(stateDir);
    await log.append(receipt({ receivedAt: '2026-01-01T00:00:00.000Z' }));
    await log.append(receipt({ receivedAt: '2026-03-01T00:00:00.000Z' }));
    expect(await readdir(stateDir)).toEqual([RECEIPTS_FILE]);
  });
});
