import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReasonCode } from './answer.js';
import { groupCommit } from './group-commit.js';

/**
 * A TriggerDelivery receipt for each request to a known trigger, appended as a JSON line to one
 * file and flushed to disk before the request is answered. Appends that arrive while a flush is
 * under way go together in the next write and flush, so a burst costs one flush, not one each.
 * A receipt holds what the platform's TriggerDelivery holds, never the body or a secret.
 */

/** The file the receipts are appended to, under the state folder. */
export const RECEIPTS_FILE = 'receipts.jsonl';

/** The platform's TriggerDelivery, with the trigger it was posted to. */
export interface TriggerDelivery {
  deliveryId: string;
  triggerId: string;
  /** ISO 8601, on the receiver's clock. */
  receivedAt: string;
  status: 'accepted' | 'duplicate' | 'refused';
  reasonCode: ReasonCode | null;
  httpStatus: number | null;
  /** As the sender named it (`X-Platform-Event-Id`), when well formed; verified only when accepted. */
  eventId: string | null;
  /** The body's top-level `type`, when it is a string. */
  eventType: string | null;
  /** SHA-256 of the raw body, hex, when it was read whole. */
  payloadSha256: string | null;
  /** Bytes of the body read; null when refused before reading. */
  sizeBytes: number | null;
  recordCount: number | null;
  executionId: string | null;
}

export interface ReceiptLog {
  /** Resolves once the receipt is on disk. */
  append(receipt: TriggerDelivery): Promise<void>;
  close(): Promise<void>;
}

/** The receipts of the state folder `stateDir`. */
export function receiptLog(stateDir: string): ReceiptLog {
  const file = join(stateDir, RECEIPTS_FILE);
  let handle: Promise<FileHandle> | undefined;
  // A failed open is not kept: the next append tries again.
  const opened = () =>
    (handle ??= mkdir(dirname(file), { recursive: true, mode: 0o700 })
      .then(() => open(file, 'a', 0o600))
      .catch((error: unknown) => {
        handle = undefined;
        throw error;
      }));
  const lines = groupCommit<string>(async (batch) => {
    const fd = await opened();
    await fd.write(batch.join(''));
    await fd.datasync();
  });
  return {
    append: (receipt) => lines.submit(`${JSON.stringify(receipt)}\n`),
    async close() {
      await lines.settled();
      const closing = handle;
      handle = undefined;
      await (await closing?.catch(() => undefined))?.close();
    },
  };
}

/**
 * The receipts a receiver kept in `stateDir`, oldest first: of one trigger, or of all; none when
 * it kept none. A line torn by a crash is passed over.
 */
export async function* listDeliveries(
  stateDir: string,
  options: { triggerId?: string } = {},
): AsyncGenerator<TriggerDelivery> {
  const { triggerId } = options;
  const stream = createReadStream(join(stateDir, RECEIPTS_FILE), { encoding: 'utf8' });
  const opening = new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    stream.once('open', () => resolve(undefined));
    stream.once('error', resolve);
  });
  const failure = await opening;
  if (failure?.code === 'ENOENT') return;
  if (failure) throw failure;
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    let receipt: TriggerDelivery;
    try {
      receipt = JSON.parse(line) as TriggerDelivery;
    } catch {
      continue;
    }
    if (triggerId === undefined || receipt.triggerId === triggerId) yield receipt;
  }
}
