import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listDeliveries, RECEIPTS_FILE, type ReceiptLog, receiptLog, type TriggerDelivery } from '../src/receipts.js';
import { stateFolder, useCleanup } from './support.js';

/**
 * The state folder's receipts, on a real file: a last line a crash tore is cut off when the file
 * is opened, so the next receipt is a line of its own; a receipt that stands on a claim is cut
 * when the claim's write fails, and the others of its batch stay.
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
function open(stateDir: string): ReceiptLog {
  const log = receiptLog(stateDir);
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
});
